//! Where a definition's lines start: the first row of the comments and attributes just above
//! it that belong to it, found as the walk meets each node's children in order, in constant
//! work per child ([`Leads`]), rather than by walking back over the siblings above each
//! definition (tree-sitter finds a node's previous sibling from its parent's first child, so
//! a walk back over a run of N comments cost N² steps: 17 s for 50,000 `// doc` lines).
//!
//! Every step is taken through [`WalkSteps`], which counts it and asks whether to go on every
//! [`NODES_PER_ASK`] steps: no loop of the walk runs unasked.

use tree_sitter::Node;

use super::language::Language;
use super::rules;

/// WalkSteps between two questions whether to go on (microseconds of work).
pub(super) const NODES_PER_ASK: u64 = 4096;

/// The walk's steps, counted, and the question whether to go on, asked every
/// [`NODES_PER_ASK`] of them: every loop over nodes takes its steps here.
pub(super) struct WalkSteps<'a, E> {
    taken: u64,
    go_on: &'a mut dyn FnMut() -> Result<(), E>,
}

impl<'a, E> WalkSteps<'a, E> {
    pub(super) fn new(go_on: &'a mut dyn FnMut() -> Result<(), E>) -> Self {
        WalkSteps { taken: 0, go_on }
    }

    /// One step more; `go_on`'s error ends the walk.
    pub(super) fn take(&mut self) -> Result<(), E> {
        self.taken += 1;
        if self.taken.is_multiple_of(NODES_PER_ASK) {
            (self.go_on)()?;
        }
        Ok(())
    }

    /// The steps taken so far (the work a test counts).
    #[cfg(test)]
    pub(super) fn taken(&self) -> u64 {
        self.taken
    }
}

/// Comments and attributes that may belong to the next definition: each directly above the
/// next, none the end of a line of code; `first_row` is where the first starts.
#[derive(Clone, Copy)]
struct Run<'t> {
    first_row: usize,
    last: Node<'t>,
}

/// What the walk knows of the children of one node it is in, as far as it has gone: the
/// child it is at, the row that child's lines start at (with what attaches above it), the
/// child before it and the run of attaching siblings ending just before it.
#[derive(Default)]
struct Level<'t> {
    at: Option<(Node<'t>, usize)>,
    run: Option<Run<'t>>,
}

/// The [`Level`] of each node the walk is in, the innermost last.
#[derive(Default)]
pub(super) struct Leads<'t> {
    inner: Level<'t>,
    outer: Vec<Level<'t>>,
}

impl<'t> Leads<'t> {
    /// The walk entered the node it was at.
    pub(super) fn enter(&mut self) {
        self.outer.push(std::mem::take(&mut self.inner));
    }

    /// The walk left the node it was in for its parent.
    pub(super) fn leave(&mut self) {
        self.inner = self.outer.pop().unwrap_or_default();
    }

    /// The walk is at `node`, the next child of the node it is in.
    pub(super) fn visit<E>(
        &mut self,
        node: Node<'t>,
        src: &[u8],
        language: Language,
        steps: &mut WalkSteps<'_, E>,
    ) -> Result<(), E> {
        let level = &mut self.inner;
        let before = level.at.map(|(b, _)| b);
        let start = node.start_position().row;
        let lead = match level.run {
            Some(run) if last_row(run.last, steps)? + 1 >= start => run.first_row,
            _ => start,
        };
        level.at = Some((node, lead));
        if !node.is_named() {
            return Ok(());
        }
        if !rules::attaches(language, node, src) {
            level.run = None;
            return Ok(());
        }
        let trailing = match before {
            Some(b) => last_row(b, steps)? == start,
            None => false,
        };
        level.run = (!trailing).then_some(Run {
            first_row: lead,
            last: node,
        });
        Ok(())
    }

    /// The row `extent`'s lines start at, the comments and attributes above it included:
    /// `extent` is a node the walk is in or at (a definition or a node wrapping it).
    pub(super) fn first_row(&self, extent: Node<'t>) -> usize {
        std::iter::once(&self.inner)
            .chain(self.outer.iter().rev())
            .filter_map(|level| level.at)
            .find(|(at, _)| at.id() == extent.id())
            .map_or(extent.start_position().row, |(_, lead)| lead)
    }
}

/// The last row of `node`'s content: comments after its last statement are not part of it
/// (Python's `end_lineno`), nor a line its end only touches at column 0 (a line comment's
/// newline).
pub(super) fn last_row<E>(node: Node<'_>, steps: &mut WalkSteps<'_, E>) -> Result<usize, E> {
    let mut last = node;
    while let Some(child) = last_content_child(last, steps)? {
        last = child;
    }
    let end = last.end_position();
    Ok(if end.column == 0 && end.row > last.start_position().row {
        end.row - 1
    } else {
        end.row
    })
}

/// `node`'s last child that is not a comment, when its last child is a comment or contains one
/// at its end; `None` when the node ends with content. One pass over the children, a step
/// each.
fn last_content_child<'t, E>(
    node: Node<'t>,
    steps: &mut WalkSteps<'_, E>,
) -> Result<Option<Node<'t>>, E> {
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return Ok(None);
    }
    let mut content = None;
    let last = loop {
        steps.take()?;
        let child = cursor.node();
        if !child.kind().ends_with("comment") {
            content = Some(child);
        }
        if !cursor.goto_next_sibling() {
            break child;
        }
    };
    let ends_in_comment = last.kind().ends_with("comment") || last.child_count() > 0;
    Ok(content.filter(|_| ends_in_comment))
}
