//! The schema tree: [`SchemaDescriptor`] built and validated from the flat, depth-first
//! `SchemaElement` list of the footer, its [`Node`]s and one [`ColumnDescriptor`] per leaf.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use super::compat::{converted_type_from_logical, logical_type_from_converted};
use super::{invalid, limit_exceeded};
use crate::Result;
use crate::metadata::{
    ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, TimeUnit, Type,
};
use crate::thrift::Text;

/// The most groups a schema may nest below its root on one path.
///
/// Real schemas nest a few dozen levels at most; a file claiming more is hostile or
/// broken, and the limit keeps definition/repetition levels well inside `i16`.
pub const MAX_SCHEMA_DEPTH: usize = 1000;

/// The most names all column paths may hold together (the sum of the columns' depths).
///
/// Each column stores its own path, so a hostile footer nesting thousands of columns
/// under a deep chain of groups would cost memory quadratic in its size; real schemas
/// (100,000 columns ten levels deep) stay far below this.
pub const MAX_TOTAL_PATH_NAMES: usize = 1 << 22;

/// Index of a [`Node`] in its [`SchemaDescriptor`]: the position of its `SchemaElement`
/// in the flat list (the root is 0).
pub type NodeId = usize;

/// One node of the schema tree: a group (the root, structs, lists, maps) or a primitive
/// leaf column. The annotations are the ones stored in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    id: NodeId,
    parent: Option<NodeId>,
    name: Text,
    repetition: Option<FieldRepetitionType>,
    converted_type: Option<ConvertedType>,
    logical_type: Option<LogicalType>,
    field_id: Option<i32>,
    kind: NodeKind,
    /// Stored fields that mean nothing for this kind of node, kept so that
    /// [`Node::to_element`] gives back exactly what the file holds. Boxed and `None`
    /// when all are unset, as they almost always are (a node of a wide schema is 24
    /// bytes smaller).
    unused: Option<Box<UnusedFields>>,
}

/// `num_children` of a leaf (parquet-cpp has written `Some(0)`); `type_length`,
/// `precision`, `scale` of a group.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct UnusedFields {
    num_children: Option<i32>,
    type_length: Option<i32>,
    precision: Option<i32>,
    scale: Option<i32>,
}

impl UnusedFields {
    /// `None` when every field is unset.
    fn boxed(self) -> Option<Box<Self>> {
        (self != UnusedFields::default()).then(|| Box::new(self))
    }
    fn of_group(element: &SchemaElement) -> Self {
        UnusedFields {
            num_children: None,
            type_length: element.type_length,
            precision: element.precision,
            scale: element.scale,
        }
    }
}

/// What a [`Node`] is: a group with children or a primitive column.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// A group; `children` are node ids in schema order.
    Group {
        /// Child node ids, in schema order.
        children: Vec<NodeId>,
    },
    /// A leaf column.
    Primitive {
        /// The physical type.
        physical_type: Type,
        /// `type_length` as stored (meaningful for `FIXED_LEN_BYTE_ARRAY`).
        type_length: Option<i32>,
        /// `precision` as stored (decimals).
        precision: Option<i32>,
        /// `scale` as stored (decimals).
        scale: Option<i32>,
        /// Index of this leaf among the schema's columns.
        column: usize,
    },
}

impl Node {
    /// This node's id (its position in the flat element list).
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The parent group's id; `None` for the root.
    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    /// The field name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The repetition as stored; the root usually has none.
    pub fn repetition(&self) -> Option<FieldRepetitionType> {
        self.repetition
    }

    /// The `LogicalType` as stored (possibly `LogicalType::Unrecognized`).
    pub fn logical_type(&self) -> Option<&LogicalType> {
        self.logical_type.as_ref()
    }

    /// The legacy `ConvertedType` as stored.
    pub fn converted_type(&self) -> Option<ConvertedType> {
        self.converted_type
    }

    /// The field id, when the writer set one.
    pub fn field_id(&self) -> Option<i32> {
        self.field_id
    }

    /// Group or primitive, with the kind-specific fields.
    pub fn kind(&self) -> &NodeKind {
        &self.kind
    }

    /// `true` for groups (including the root).
    pub fn is_group(&self) -> bool {
        matches!(self.kind, NodeKind::Group { .. })
    }

    /// `true` for leaf columns.
    pub fn is_primitive(&self) -> bool {
        !self.is_group()
    }

    /// Child ids of a group, in schema order; empty for a primitive.
    pub fn children(&self) -> &[NodeId] {
        match &self.kind {
            NodeKind::Group { children } => children,
            NodeKind::Primitive { .. } => &[],
        }
    }

    /// The physical type of a primitive; `None` for a group.
    pub fn physical_type(&self) -> Option<Type> {
        match self.kind {
            NodeKind::Primitive { physical_type, .. } => Some(physical_type),
            NodeKind::Group { .. } => None,
        }
    }

    /// `type_length` of a primitive as stored.
    pub fn type_length(&self) -> Option<i32> {
        match self.kind {
            NodeKind::Primitive { type_length, .. } => type_length,
            NodeKind::Group { .. } => None,
        }
    }

    /// `precision` of a primitive as stored.
    pub fn precision(&self) -> Option<i32> {
        match self.kind {
            NodeKind::Primitive { precision, .. } => precision,
            NodeKind::Group { .. } => None,
        }
    }

    /// `scale` of a primitive as stored.
    pub fn scale(&self) -> Option<i32> {
        match self.kind {
            NodeKind::Primitive { scale, .. } => scale,
            NodeKind::Group { .. } => None,
        }
    }

    /// The column index of a leaf; `None` for a group.
    pub fn column_index(&self) -> Option<usize> {
        match self.kind {
            NodeKind::Primitive { column, .. } => Some(column),
            NodeKind::Group { .. } => None,
        }
    }

    /// The logical type a reader should apply: the stored `LogicalType` when it is one
    /// this version knows, else the one the stored `ConvertedType` stands for.
    pub fn resolved_logical_type(&self) -> Option<LogicalType> {
        match &self.logical_type {
            Some(LogicalType::Unrecognized { .. }) | None => self
                .converted_type
                .and_then(|c| logical_type_from_converted(c, self.precision(), self.scale())),
            Some(logical) => Some(logical.clone()),
        }
    }

    /// The legacy annotation: the stored `ConvertedType`, else the one the stored
    /// `LogicalType` maps to.
    pub fn resolved_converted_type(&self) -> Option<ConvertedType> {
        self.converted_type.or_else(|| {
            self.logical_type
                .as_ref()
                .and_then(converted_type_from_logical)
        })
    }

    /// The `SchemaElement` this node was built from (field for field).
    pub fn to_element(&self) -> SchemaElement {
        let unused = self.unused.as_deref().copied().unwrap_or_default();
        let (type_, type_length, precision, scale, num_children) = match &self.kind {
            NodeKind::Group { children } => (
                None,
                unused.type_length,
                unused.precision,
                unused.scale,
                Some(i32::try_from(children.len()).unwrap_or(i32::MAX)),
            ),
            NodeKind::Primitive {
                physical_type,
                type_length,
                precision,
                scale,
                ..
            } => (
                Some(*physical_type),
                *type_length,
                *precision,
                *scale,
                unused.num_children,
            ),
        };
        SchemaElement {
            type_,
            type_length,
            repetition_type: self.repetition,
            name: self.name.clone(),
            num_children,
            converted_type: self.converted_type,
            scale,
            precision,
            field_id: self.field_id,
            logical_type: self.logical_type.clone(),
        }
    }
}

/// A column's path from the root (root name excluded): `a.b.c` for leaf `c` in group `b`
/// in top-level group `a`.
#[derive(Clone)]
pub struct ColumnPath(PathParts);

/// The names share the footer's buffer (as the schema elements' names do), and a
/// top-level leaf (most columns of wide tables) holds its one name without a vector
/// around it: building a wide schema allocates nothing per column for its paths.
#[derive(Clone)]
enum PathParts {
    One(Text),
    Many(Vec<Text>),
}

impl ColumnPath {
    /// A path from its parts (outermost first).
    pub fn new<S: Into<Text>>(parts: impl IntoIterator<Item = S>) -> Self {
        ColumnPath(PathParts::Many(parts.into_iter().map(Into::into).collect()))
    }

    /// The names from the top-level field down to the leaf.
    pub fn parts(&self) -> &[Text] {
        match &self.0 {
            PathParts::One(name) => std::slice::from_ref(name),
            PathParts::Many(parts) => parts,
        }
    }

    /// The dotted form, `a.b.c`.
    pub fn dotted(&self) -> String {
        self.parts().join(".")
    }
}

impl Default for ColumnPath {
    fn default() -> Self {
        ColumnPath(PathParts::Many(Vec::new()))
    }
}

impl fmt::Debug for ColumnPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ColumnPath").field(&self.parts()).finish()
    }
}

impl PartialEq for ColumnPath {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for ColumnPath {}

impl std::hash::Hash for ColumnPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state)
    }
}

impl PartialOrd for ColumnPath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ColumnPath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.parts().cmp(other.parts())
    }
}

impl fmt::Display for ColumnPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts().iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

impl From<Vec<String>> for ColumnPath {
    fn from(parts: Vec<String>) -> Self {
        ColumnPath::new(parts)
    }
}

impl From<&[&str]> for ColumnPath {
    fn from(parts: &[&str]) -> Self {
        ColumnPath::new(parts.iter().copied())
    }
}

/// Everything a reader needs to know about one leaf column.
///
/// It holds the leaf's own fields (name, physical type, annotations) rather than a
/// copy of its [`Node`], which stays in the schema tree: [`node_id`](Self::node_id)
/// finds it there. A wide schema has one descriptor per column, so a copy of every
/// leaf node was most of the schema's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDescriptor {
    node: NodeId,
    path: ColumnPath,
    logical_type: Option<LogicalType>,
    converted_type: Option<ConvertedType>,
    repetition: FieldRepetitionType,
    physical_type: Type,
    type_length: Option<i32>,
    precision: Option<i32>,
    scale: Option<i32>,
    max_def_level: i16,
    max_rep_level: i16,
    root_field: usize,
}

impl ColumnDescriptor {
    /// The path from the top-level field to this leaf.
    pub fn path(&self) -> &ColumnPath {
        &self.path
    }

    /// The leaf's own name (the last part of the path).
    pub fn name(&self) -> &str {
        self.path.parts().last().map_or("", Text::as_str)
    }

    /// The physical type.
    pub fn physical_type(&self) -> Type {
        self.physical_type
    }

    /// The resolved logical type: the stored `LogicalType` when this version knows it,
    /// else the one derived from the stored `ConvertedType` (backward compatibility).
    pub fn logical_type(&self) -> Option<&LogicalType> {
        self.logical_type.as_ref()
    }

    /// The legacy annotation: the stored `ConvertedType`, else the one derived from the
    /// `LogicalType` (forward compatibility).
    pub fn converted_type(&self) -> Option<ConvertedType> {
        self.converted_type
    }

    /// `type_length` as stored (the byte width of a `FIXED_LEN_BYTE_ARRAY`).
    pub fn type_length(&self) -> Option<i32> {
        self.type_length
    }

    /// Decimal precision: from the `DECIMAL` logical type, else as stored.
    pub fn precision(&self) -> Option<i32> {
        match self.logical_type {
            Some(LogicalType::Decimal { precision, .. }) => Some(precision),
            _ => self.precision,
        }
    }

    /// Decimal scale: from the `DECIMAL` logical type, else as stored.
    pub fn scale(&self) -> Option<i32> {
        match self.logical_type {
            Some(LogicalType::Decimal { scale, .. }) => Some(scale),
            _ => self.scale,
        }
    }

    /// The highest definition level of this column (optional and repeated ancestors,
    /// the leaf included).
    pub fn max_def_level(&self) -> i16 {
        self.max_def_level
    }

    /// The highest repetition level of this column (repeated ancestors, the leaf
    /// included).
    pub fn max_rep_level(&self) -> i16 {
        self.max_rep_level
    }

    /// The leaf's repetition (`REQUIRED` when the file left it unset).
    pub fn repetition(&self) -> FieldRepetitionType {
        self.repetition
    }

    /// The id of the leaf's [`Node`] in its schema: `schema.node(column.node_id())`.
    pub fn node_id(&self) -> NodeId {
        self.node
    }

    /// Index of the top-level field (child of the root) this column belongs to.
    pub fn root_field_index(&self) -> usize {
        self.root_field
    }
}

/// The schema of a file: the tree of [`Node`]s and a [`ColumnDescriptor`] per leaf.
///
/// ```
/// use herringbone_format::schema::{parse_message_type, SchemaDescriptor};
///
/// let elements = parse_message_type(
///     "message schema {
///        required int32 id;
///        optional group tags (LIST) {
///          repeated group list {
///            optional binary element (STRING);
///          }
///        }
///      }",
/// )
/// .unwrap();
/// let schema = SchemaDescriptor::new(&elements).unwrap();
/// assert_eq!(schema.num_columns(), 2);
/// let tags = schema.column(1).unwrap();
/// assert_eq!(tags.path().to_string(), "tags.list.element");
/// assert_eq!((tags.max_def_level(), tags.max_rep_level()), (3, 1));
/// assert_eq!(schema.leaf_to_root_field(1), Some(1));
/// ```
#[derive(Debug, Clone)]
pub struct SchemaDescriptor {
    nodes: Vec<Node>,
    columns: Vec<ColumnDescriptor>,
    by_dotted_path: OnceLock<HashMap<String, usize>>,
}

impl PartialEq for SchemaDescriptor {
    fn eq(&self, other: &Self) -> bool {
        self.nodes == other.nodes
    }
}

/// A group whose children are still being read.
struct OpenGroup {
    node: NodeId,
    remaining: usize,
    def: i16,
    rep: i16,
    root_field: usize,
}

impl SchemaDescriptor {
    /// Builds and validates the tree from the footer's flat, depth-first element list.
    ///
    /// Errors (with the element index and path) when the list is not a tree (root not a
    /// group, a child count that is negative or larger than the elements that follow,
    /// elements left over), a leaf has no physical type, a group has one, a
    /// `FIXED_LEN_BYTE_ARRAY` has no positive length, nesting exceeds
    /// [`MAX_SCHEMA_DEPTH`], the column paths together exceed [`MAX_TOTAL_PATH_NAMES`]
    /// names, or an annotation does not fit its type (see the module
    /// documentation). Unknown `ConvertedType` values and unrecognized `LogicalType`
    /// members are carried, not rejected.
    pub fn new(elements: &[SchemaElement]) -> Result<SchemaDescriptor> {
        let root = elements
            .first()
            .ok_or_else(|| invalid("schema: the element list is empty (it needs a root group)"))?;
        let Some(root_children) = root.num_children else {
            return Err(invalid(format!(
                "schema: the root element `{}` is not a group (num_children is not set)",
                root.name.as_str()
            )));
        };
        let left = elements.len() - 1;
        let root_children = check_children(root_children, left, 0, &root.name)?;
        if let Some(physical) = root.type_ {
            return Err(invalid(format!(
                "schema element 0 (root `{}`): a group has physical type {physical}",
                root.name.as_str()
            )));
        }
        check_group_annotation(
            root,
            0,
            &DottedPath {
                prefix: &[],
                name: &root.name,
            },
        )?;

        let mut nodes: Vec<Node> = Vec::with_capacity(elements.len());
        // Leaves are the elements with a physical type and no children (an upper bound
        // when the list turns out invalid).
        let leaf_count = elements
            .iter()
            .filter(|e| e.type_.is_some() && e.num_children.unwrap_or(0) == 0)
            .count();
        let mut columns: Vec<ColumnDescriptor> = Vec::with_capacity(leaf_count);
        nodes.push(Node {
            id: 0,
            parent: None,
            name: root.name.clone(),
            repetition: root.repetition_type,
            converted_type: root.converted_type,
            logical_type: root.logical_type.clone(),
            field_id: root.field_id,
            kind: NodeKind::Group {
                children: Vec::with_capacity(root_children),
            },
            unused: UnusedFields::of_group(root).boxed(),
        });
        let mut open: Vec<OpenGroup> = vec![OpenGroup {
            node: 0,
            remaining: root_children,
            def: 0,
            rep: 0,
            root_field: 0,
        }];
        // Names of the open groups below the root: the path prefix of the next element.
        let mut path: Vec<Text> = Vec::new();
        let mut total_path_names = 0usize;

        for (index, element) in elements.iter().enumerate().skip(1) {
            while open.last().is_some_and(|g| g.remaining == 0) {
                open.pop();
                if !open.is_empty() {
                    path.pop();
                }
            }
            let at_top = open.len() == 1;
            let Some(parent) = open.last_mut() else {
                return Err(invalid(format!(
                    "schema: element {index} (`{}`) is outside the tree: the root's {} \
                     children and their descendants end before it ({} elements in the list)",
                    element.name.as_str(),
                    root_children,
                    elements.len()
                )));
            };
            parent.remaining -= 1;
            let parent_id = parent.node;
            let (parent_def, parent_rep) = (parent.def, parent.rep);
            let root_field = if at_top {
                nodes[0].children().len()
            } else {
                parent.root_field
            };

            // Formatted only when an error names the element: building the dotted
            // path eagerly cost an allocation per leaf.
            let at = DottedPath {
                prefix: &path,
                name: &element.name,
            };
            let repetition = match element.repetition_type {
                None => FieldRepetitionType::REQUIRED,
                Some(
                    r @ (FieldRepetitionType::REQUIRED
                    | FieldRepetitionType::OPTIONAL
                    | FieldRepetitionType::REPEATED),
                ) => r,
                Some(other) => {
                    return Err(invalid(format!(
                        "schema element {index} (`{}`): invalid repetition_type {other}",
                        at
                    )));
                }
            };
            let def = parent_def + i16::from(repetition != FieldRepetitionType::REQUIRED);
            let rep = parent_rep + i16::from(repetition == FieldRepetitionType::REPEATED);

            let group_children = match (element.num_children, element.type_) {
                (Some(n), None) => Some(n),
                // parquet-cpp has written num_children = 0 on leaves.
                (Some(0), Some(_)) | (None, Some(_)) => None,
                (Some(n), Some(physical)) => {
                    return Err(invalid(format!(
                        "schema element {index} (`{}`): a group ({n} children) has physical \
                         type {physical}",
                        at
                    )));
                }
                (None, None) => {
                    return Err(invalid(format!(
                        "schema element {index} (`{}`): a leaf has no physical type",
                        at
                    )));
                }
            };

            let id = nodes.len();
            if let NodeKind::Group { children } = &mut nodes[parent_id].kind {
                children.push(id);
            }
            let common = |kind| Node {
                id,
                parent: Some(parent_id),
                name: element.name.clone(),
                repetition: element.repetition_type,
                converted_type: element.converted_type,
                logical_type: element.logical_type.clone(),
                field_id: element.field_id,
                kind,
                unused: None,
            };

            if let Some(n) = group_children {
                let left = elements.len() - index - 1;
                let n = check_children(n, left, index, &element.name)?;
                check_group_annotation(element, index, &at)?;
                if open.len() > MAX_SCHEMA_DEPTH {
                    return Err(limit_exceeded(format!(
                        "schema element {index} (`{}`): groups nest deeper than {MAX_SCHEMA_DEPTH} levels",
                        element.name.as_str()
                    )));
                }
                let mut node = common(NodeKind::Group {
                    children: Vec::with_capacity(n),
                });
                node.unused = UnusedFields::of_group(element).boxed();
                nodes.push(node);
                open.push(OpenGroup {
                    node: id,
                    remaining: n,
                    def,
                    rep,
                    root_field,
                });
                path.push(element.name.clone());
            } else {
                let physical_type = element.type_.unwrap_or(Type::BYTE_ARRAY);
                check_leaf(element, physical_type, index, &at)?;
                let mut node = common(NodeKind::Primitive {
                    physical_type,
                    type_length: element.type_length,
                    precision: element.precision,
                    scale: element.scale,
                    column: columns.len(),
                });
                node.unused = UnusedFields {
                    num_children: element.num_children,
                    ..UnusedFields::default()
                }
                .boxed();
                total_path_names += path.len() + 1;
                if total_path_names > MAX_TOTAL_PATH_NAMES {
                    return Err(limit_exceeded(format!(
                        "schema element {index} (`{}`): the column paths hold more than \
                         {MAX_TOTAL_PATH_NAMES} names together",
                        at
                    )));
                }
                let parts = if path.is_empty() {
                    PathParts::One(element.name.clone())
                } else {
                    let mut parts = Vec::with_capacity(path.len() + 1);
                    parts.extend(path.iter().cloned());
                    parts.push(element.name.clone());
                    PathParts::Many(parts)
                };
                columns.push(ColumnDescriptor {
                    logical_type: node.resolved_logical_type(),
                    converted_type: node.resolved_converted_type(),
                    node: id,
                    path: ColumnPath(parts),
                    physical_type,
                    type_length: element.type_length,
                    precision: element.precision,
                    scale: element.scale,
                    repetition,
                    max_def_level: def,
                    max_rep_level: rep,
                    root_field,
                });
                nodes.push(node);
            }
        }

        if let Some(unfinished) = open.iter().find(|g| g.remaining > 0) {
            let node = &nodes[unfinished.node];
            return Err(invalid(format!(
                "schema element {} (`{}`): declares {} children but the element list ends \
                 {} short",
                node.id,
                node.name(),
                node.children().len() + unfinished.remaining,
                unfinished.remaining
            )));
        }

        Ok(SchemaDescriptor {
            nodes,
            columns,
            by_dotted_path: OnceLock::new(),
        })
    }

    /// The root group's name (`schema`, `spark_schema`, ...).
    pub fn name(&self) -> &str {
        self.nodes[0].name()
    }

    /// The root group.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// A node by id (`None` when out of range).
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id)
    }

    /// Every node, in depth-first (file) order; index = [`NodeId`].
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The children of a node, in schema order.
    pub fn children<'a>(&'a self, node: &'a Node) -> impl Iterator<Item = &'a Node> + 'a {
        node.children().iter().filter_map(|&id| self.nodes.get(id))
    }

    /// Number of leaf columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// The `i`-th leaf column (`None` when out of range).
    pub fn column(&self, i: usize) -> Option<&ColumnDescriptor> {
        self.columns.get(i)
    }

    /// Every leaf column, in file order.
    pub fn columns(&self) -> &[ColumnDescriptor] {
        &self.columns
    }

    /// Index of the top-level field that leaf column `i` belongs to.
    pub fn leaf_to_root_field(&self, i: usize) -> Option<usize> {
        self.columns.get(i).map(|c| c.root_field)
    }

    /// The index of the column whose dotted path is `dotted` (`a.b.c`). Names holding
    /// dots make dotted paths ambiguous; the first column wins, and
    /// [`column_index`](Self::column_index) takes the parts instead.
    pub fn column_index_by_dotted_path(&self, dotted: &str) -> Option<usize> {
        let index = self.by_dotted_path.get_or_init(|| {
            let mut map = HashMap::with_capacity(self.columns.len());
            for (i, c) in self.columns.iter().enumerate() {
                map.entry(c.path.dotted()).or_insert(i);
            }
            map
        });
        index.get(dotted).copied()
    }

    /// The column at dotted path `dotted` (see
    /// [`column_index_by_dotted_path`](Self::column_index_by_dotted_path)).
    pub fn column_by_dotted_path(&self, dotted: &str) -> Option<&ColumnDescriptor> {
        self.column_index_by_dotted_path(dotted)
            .and_then(|i| self.columns.get(i))
    }

    /// The index of the column with exactly this path.
    pub fn column_index(&self, path: &ColumnPath) -> Option<usize> {
        self.columns.iter().position(|c| &c.path == path)
    }

    /// The flat, depth-first `SchemaElement` list of this schema (what a footer stores).
    pub fn to_elements(&self) -> Vec<SchemaElement> {
        self.nodes.iter().map(Node::to_element).collect()
    }
}

/// The dotted path of the element being read (`a.b.c`), formatted on demand for error
/// messages.
struct DottedPath<'a> {
    prefix: &'a [Text],
    name: &'a Text,
}

impl fmt::Display for DottedPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in self.prefix {
            f.write_str(part)?;
            f.write_str(".")?;
        }
        f.write_str(self.name)
    }
}

fn check_children(n: i32, left: usize, index: usize, name: &Text) -> Result<usize> {
    match usize::try_from(n) {
        Ok(n) if n <= left => Ok(n),
        Ok(n) => Err(invalid(format!(
            "schema element {index} (`{}`): num_children {n} exceeds the {left} elements \
             that follow",
            name.as_str()
        ))),
        Err(_) => Err(invalid(format!(
            "schema element {index} (`{}`): negative num_children {n}",
            name.as_str()
        ))),
    }
}

fn check_group_annotation(
    element: &SchemaElement,
    index: usize,
    path: &DottedPath<'_>,
) -> Result<()> {
    match &element.logical_type {
        Some(LogicalType::List | LogicalType::Map | LogicalType::Variant { .. })
        | Some(LogicalType::Unrecognized { .. }) => {}
        Some(other) => {
            return Err(invalid(format!(
                "schema element {index} (`{path}`): logical type {other:?} cannot annotate a group"
            )));
        }
        None => {}
    }
    if matches!(
        element.logical_type,
        None | Some(LogicalType::Unrecognized { .. })
    ) {
        match element.converted_type {
            Some(ConvertedType::LIST | ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE)
            | None => {}
            Some(c) if c.name().is_none() => {}
            Some(c) => {
                return Err(invalid(format!(
                    "schema element {index} (`{path}`): converted type {c} cannot annotate a group"
                )));
            }
        }
    }
    Ok(())
}

/// Whether `precision` decimal digits fit a two's complement number of `bytes` bytes:
/// at most `floor(log10(2^(8 * bytes - 1) - 1))` digits.
fn flba_max_decimal_digits(bytes: i32) -> i64 {
    let bits = 8 * i64::from(bytes) - 1;
    if bits <= 127 {
        let max = (1u128 << bits) - 1;
        let mut digits = 0;
        let mut v = max;
        while v >= 10 {
            v /= 10;
            digits += 1;
        }
        // `digits` is floor(log10(max)).
        digits
    } else {
        // 2^bits is never a power of ten, so floor(log10(2^bits - 1)) = floor(bits * log10 2).
        (bits as f64 * std::f64::consts::LOG10_2).floor() as i64
    }
}

fn check_decimal(
    physical: Type,
    type_length: Option<i32>,
    precision: Option<i32>,
    scale: i32,
    index: usize,
    path: &DottedPath<'_>,
) -> Result<()> {
    let here = || format!("schema element {index} (`{path}`)");
    let precision = match precision {
        Some(p) if p >= 1 => p,
        Some(p) => {
            return Err(invalid(format!(
                "{}: DECIMAL precision must be positive, got {p}",
                here()
            )));
        }
        None => {
            return Err(invalid(format!("{}: DECIMAL without a precision", here())));
        }
    };
    if scale < 0 || scale > precision {
        return Err(invalid(format!(
            "{}: DECIMAL scale {scale} is outside 0..={precision} (the precision)",
            here()
        )));
    }
    let max = match physical {
        Type::INT32 => 9,
        Type::INT64 => 18,
        Type::FIXED_LEN_BYTE_ARRAY => flba_max_decimal_digits(type_length.unwrap_or(0)),
        Type::BYTE_ARRAY => return Ok(()),
        other => {
            return Err(invalid(format!(
                "{}: DECIMAL cannot annotate {other}",
                here()
            )));
        }
    };
    if i64::from(precision) > max {
        let what = match physical {
            Type::FIXED_LEN_BYTE_ARRAY => {
                format!("FIXED_LEN_BYTE_ARRAY({}) holds", type_length.unwrap_or(0))
            }
            other => format!("{other} holds"),
        };
        return Err(invalid(format!(
            "{}: DECIMAL precision {precision} is too large: {what} at most {max} digits",
            here()
        )));
    }
    Ok(())
}

fn check_leaf(
    element: &SchemaElement,
    physical: Type,
    index: usize,
    path: &DottedPath<'_>,
) -> Result<()> {
    let here = || format!("schema element {index} (`{path}`)");
    if physical.name().is_none() {
        return Err(invalid(format!(
            "{}: unknown physical type {physical}",
            here()
        )));
    }
    let flba_len = if physical == Type::FIXED_LEN_BYTE_ARRAY {
        match element.type_length {
            Some(n) if n > 0 => Some(n),
            other => {
                return Err(invalid(format!(
                    "{}: FIXED_LEN_BYTE_ARRAY needs a positive type_length, got {}",
                    here(),
                    other.map_or_else(|| "none".to_owned(), |n| n.to_string())
                )));
            }
        }
    } else {
        None
    };
    let need = |ok: bool, what: &str, annotation: &dyn fmt::Debug| -> Result<()> {
        if ok {
            Ok(())
        } else {
            let actual = match flba_len {
                Some(n) => format!("FIXED_LEN_BYTE_ARRAY({n})"),
                None => physical.to_string(),
            };
            Err(invalid(format!(
                "{}: {annotation:?} must annotate {what}, not {actual}",
                here()
            )))
        }
    };
    let is = |t: Type| physical == t;
    match &element.logical_type {
        Some(LogicalType::Unrecognized { .. }) | None => {}
        Some(logical) => {
            return match logical {
                LogicalType::String
                | LogicalType::Enum
                | LogicalType::Json
                | LogicalType::Bson
                | LogicalType::Geometry { .. }
                | LogicalType::Geography { .. } => {
                    need(is(Type::BYTE_ARRAY), "BYTE_ARRAY", logical)
                }
                LogicalType::Decimal { scale, precision } => {
                    check_decimal(physical, flba_len, Some(*precision), *scale, index, path)
                }
                LogicalType::Date => need(is(Type::INT32), "INT32", logical),
                LogicalType::Time { unit, .. } => match unit {
                    TimeUnit::Millis => need(is(Type::INT32), "INT32", logical),
                    TimeUnit::Micros | TimeUnit::Nanos => need(is(Type::INT64), "INT64", logical),
                },
                LogicalType::Timestamp { .. } => need(is(Type::INT64), "INT64", logical),
                LogicalType::Integer { bit_width, .. } => match bit_width {
                    8 | 16 | 32 => need(is(Type::INT32), "INT32", logical),
                    64 => need(is(Type::INT64), "INT64", logical),
                    other => Err(invalid(format!(
                        "{}: INTEGER bit width {other} is not one of 8, 16, 32, 64",
                        here()
                    ))),
                },
                LogicalType::Unknown => Ok(()),
                LogicalType::Uuid => {
                    need(flba_len == Some(16), "FIXED_LEN_BYTE_ARRAY(16)", logical)
                }
                LogicalType::Float16 => {
                    need(flba_len == Some(2), "FIXED_LEN_BYTE_ARRAY(2)", logical)
                }
                LogicalType::List | LogicalType::Map | LogicalType::Variant { .. } => {
                    need(false, "a group", logical)
                }
                LogicalType::Unrecognized { .. } => Ok(()),
            };
        }
    }
    let Some(converted) = element.converted_type else {
        return Ok(());
    };
    match converted {
        ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON | ConvertedType::BSON => {
            need(is(Type::BYTE_ARRAY), "BYTE_ARRAY", &converted)
        }
        ConvertedType::DECIMAL => check_decimal(
            physical,
            flba_len,
            element.precision,
            element.scale.unwrap_or(0),
            index,
            path,
        ),
        ConvertedType::DATE
        | ConvertedType::TIME_MILLIS
        | ConvertedType::INT_8
        | ConvertedType::INT_16
        | ConvertedType::INT_32
        | ConvertedType::UINT_8
        | ConvertedType::UINT_16
        | ConvertedType::UINT_32 => need(is(Type::INT32), "INT32", &converted),
        ConvertedType::TIME_MICROS
        | ConvertedType::TIMESTAMP_MILLIS
        | ConvertedType::TIMESTAMP_MICROS
        | ConvertedType::INT_64
        | ConvertedType::UINT_64 => need(is(Type::INT64), "INT64", &converted),
        ConvertedType::INTERVAL => {
            need(flba_len == Some(12), "FIXED_LEN_BYTE_ARRAY(12)", &converted)
        }
        ConvertedType::LIST | ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE => {
            need(false, "a group", &converted)
        }
        // An annotation from a newer writer: carried, the column reads as its physical type.
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_fields_survive_to_elements() {
        let mut elements = crate::schema::parse_message_type(
            "message m { required int32 a; optional group g { required int64 b; } }",
        )
        .unwrap();
        // parquet-cpp's `num_children = 0` on a leaf, a precision on a group.
        elements[1].num_children = Some(0);
        elements[2].precision = Some(3);
        let schema = SchemaDescriptor::new(&elements).unwrap();
        assert!(schema.nodes()[1].unused.is_some());
        assert!(schema.nodes()[3].unused.is_none());
        assert_eq!(schema.to_elements(), elements);
    }

    #[test]
    fn column_paths_compare_by_parts_whatever_their_storage() {
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        let one = ColumnPath(PathParts::One(Text::from("a")));
        let many = ColumnPath::new(vec!["a".to_owned()]);
        let hash = |p: &ColumnPath| {
            let mut h = DefaultHasher::new();
            p.hash(&mut h);
            h.finish()
        };
        assert_eq!(one, many);
        assert_eq!(hash(&one), hash(&many));
        assert_eq!(one.cmp(&many), std::cmp::Ordering::Equal);
        assert_eq!(one.parts(), [Text::from("a")]);
        assert_eq!(format!("{one:?}"), r#"ColumnPath(["a"])"#);
        let nested = ColumnPath::from(&["a", "b"][..]);
        assert!(one < nested);
        assert_eq!(nested.dotted(), "a.b");
        assert!(ColumnPath::default().parts().is_empty());

        let schema = SchemaDescriptor::new(
            &crate::schema::parse_message_type(
                "message m { required int32 a; optional group g { required int64 b; } }",
            )
            .unwrap(),
        )
        .unwrap();
        assert!(matches!(
            schema.column(0).unwrap().path().0,
            PathParts::One(_)
        ));
        assert_eq!(schema.column(0).unwrap().path(), &many);
        assert_eq!(
            schema.column(1).unwrap().path(),
            &ColumnPath::from(&["g", "b"][..])
        );
        assert_eq!(schema.column_index(&many), Some(0));
    }

    #[test]
    fn a_column_descriptor_agrees_with_its_leaf_node() {
        let schema = SchemaDescriptor::new(
            &crate::schema::parse_message_type(
                "message m {
                   required int32 a;
                   optional group g {
                     required fixed_len_byte_array(9) price (DECIMAL(20, 4));
                     repeated binary tag (STRING);
                   }
                   optional int64 b = 7;
                 }",
            )
            .unwrap(),
        )
        .unwrap();
        let seen: Vec<_> = schema
            .columns()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let node = schema.node(c.node_id()).unwrap();
                assert_eq!(node.column_index(), Some(i));
                assert_eq!(node.name(), c.name());
                assert_eq!(node.physical_type(), Some(c.physical_type()));
                assert_eq!(node.type_length(), c.type_length());
                (
                    c.name(),
                    c.node_id(),
                    node.field_id(),
                    c.precision(),
                    c.scale(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("a", 1, None, None, None),
                ("price", 3, None, Some(20), Some(4)),
                ("tag", 4, None, None, None),
                ("b", 5, Some(7), None, None),
            ]
        );
        // The names in a path are the elements' own (shared, not copied).
        let tag = schema.column(2).unwrap().path();
        assert_eq!(tag.dotted(), "g.tag");
        assert_eq!(tag.parts()[0], "g");
    }

    #[test]
    fn flba_decimal_digits_match_the_spec_formula() {
        // floor(log10(2^(8n-1) - 1)) for the widths writers use.
        let expected = [
            (1, 2),
            (2, 4),
            (3, 6),
            (4, 9),
            (5, 11),
            (6, 14),
            (7, 16),
            (8, 18),
            (9, 21),
            (10, 23),
            (11, 26),
            (12, 28),
            (16, 38),
            (32, 76),
        ];
        for (bytes, digits) in expected {
            assert_eq!(flba_max_decimal_digits(bytes), digits, "{bytes} bytes");
        }
    }
}
