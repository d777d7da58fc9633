//! What the reader's tests share: files built page by page ([`built`]), for shapes no
//! writer produces on request (hostile sizes, one page of millions of values, quirks
//! of a given writer).

#![allow(dead_code)]

pub mod built;
