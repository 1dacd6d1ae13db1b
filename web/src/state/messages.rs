//! Messages: an error, a passing notice, a link to copy by hand, and an editor field's error, and
//! the actions that show and dismiss them. A part of the state with its own reducer.

/// What the page says besides the story.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Messages {
    /// An error to show.
    pub error: Option<String>,
    /// A passing message ("link copied").
    pub notice: Option<String>,
    /// A link to show for copying by hand.
    pub link: Option<String>,
    /// An editor field's error, shown next to that field.
    pub field_error: Option<(Field, String)>,
}

/// An editor field that can show its own error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The seed box.
    Seed,
    /// The "Freeze … at … s" form.
    Pause,
}

/// Showing and dismissing messages.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// Show an error.
    Error(String),
    /// Show an error next to an editor field.
    FieldError(Field, String),
    /// Show a passing message.
    Notice(String),
    /// Show a link for copying by hand.
    Link(String),
    /// Close dialogs and messages.
    Dismiss,
}

impl Message {
    /// Whether it takes the notice's place: an Undo offered beside the old notice would then
    /// seem to undo whatever the new one reports (a copied link), not the lane clicks before it.
    pub fn replaces_notice(&self) -> bool {
        matches!(self, Message::Notice(_) | Message::Dismiss)
    }
}

impl Messages {
    /// Applies one action to the messages.
    pub fn apply(&mut self, action: Message) {
        match action {
            Message::Error(e) => self.error = Some(e),
            Message::FieldError(f, e) => self.field_error = Some((f, e)),
            Message::Notice(n) => self.notice = Some(n),
            Message::Link(l) => self.link = Some(l),
            Message::Dismiss => *self = Messages::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::testing::{apply, paused};
    use crate::state::{Action, Edit};

    #[test]
    fn messages_show_until_dismissed() {
        let mut m = Messages::default();
        m.apply(Message::Error("no".into()));
        m.apply(Message::FieldError(Field::Seed, "bad seed".into()));
        m.apply(Message::Notice("Link copied to the clipboard.".into()));
        m.apply(Message::Link("https://example.test/#s=x".into()));
        assert_eq!(m.error.as_deref(), Some("no"));
        assert_eq!(m.field_error, Some((Field::Seed, "bad seed".into())));
        assert_eq!(m.notice.as_deref(), Some("Link copied to the clipboard."));
        assert_eq!(m.link.as_deref(), Some("https://example.test/#s=x"));
        m.apply(Message::Dismiss);
        assert_eq!(m, Messages::default());
        assert!(Message::Dismiss.replaces_notice());
        assert!(!Message::Error("x".into()).replaces_notice());
    }

    #[test]
    fn another_notice_takes_the_undo_offer_with_it() {
        let s = apply(
            paused(),
            [Action::Edit(Edit::LaneClick {
                worker: 1,
                at: 5_000,
            })],
        );
        assert_eq!(s.story.clicks.len(), 1);
        let s = apply(
            s,
            [Action::Message(Message::Notice(
                "Link copied to the clipboard.".into(),
            ))],
        );
        assert!(
            s.story.clicks.is_empty(),
            "an Undo beside 'Link copied' would remove the pause"
        );
        assert_eq!(s.story.scenario.faults.len(), 2);
    }
}
