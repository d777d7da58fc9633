//! Row-group and page statistics as typed Arrow arrays, for engines that prune.
//!
//! A [`StatisticsConverter`] is made for one leaf column of a file; it turns the chunk
//! statistics of any set of row groups, or the page index of one column chunk, into
//! [`StatisticsArrays`]: minimums and maximums in the column's Arrow type, with null,
//! distinct, NaN and row counts beside them. The raw Thrift statistics stay in
//! [`crate::metadata`]. Geospatial bounding boxes come from [`geo_statistics`].

pub use herringbone_arrow_bridge::statistics::{
    GeoStatisticsArrays, StatisticsArrays, StatisticsConverter, geo_statistics,
};
