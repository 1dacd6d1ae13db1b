//! The props of a panel that describes a trace as of the playhead (the verdict, the storage).

use std::rc::Rc;

use fencepost_sim::Trace;
use yew::prelude::*;

use crate::model::TokenStyle;

/// The props of a panel that describes a trace as of the playhead.
#[derive(Properties, PartialEq)]
pub struct TraceAt {
    /// The trace.
    pub trace: Rc<Trace>,
    /// Events that have happened.
    pub upto: usize,
    /// A shorter form (compare mode, an embed).
    #[prop_or_default]
    pub compact: bool,
    /// How tokens are written.
    #[prop_or_default]
    pub tokens: TokenStyle,
    /// In compare mode: which of the two timelines this describes.
    #[prop_or_default]
    pub which: Option<AttrValue>,
}
