//! The library error under one of ours: [`Shared`] carries it as a typed `#[source]` that
//! errors holding it can still derive `Clone` and `Eq` with, and [`chain`] is the one way an
//! error and its sources are written on one line.

use std::error::Error;
use std::fmt::{self, Debug, Display, Formatter};
use std::sync::Arc;

/// A cause shared by every clone of the error holding it (a failed single flight hands the
/// same error to every waiter). Two are equal when they read the same: the library errors
/// carried here have no equality of their own, and what an agent reads is the text.
pub(crate) struct Shared<E: ?Sized>(Arc<E>);

impl<E: Error + Send + Sync + 'static> Shared<E> {
    pub(crate) fn new(error: E) -> Self {
        Self(Arc::new(error))
    }
}

impl Shared<dyn Error + Send + Sync> {
    /// A cause of any error type, for a layer whose failures come from many (gix's).
    pub(crate) fn any(error: impl Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }

    /// The cause as a `T`, when it is one: for the layer that boxed it, telling its own
    /// failures apart (a single flight sharing only some of them).
    pub(crate) fn downcast_ref<T: Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }
}

impl<E: ?Sized> Clone for Shared<E> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<E: ?Sized + Debug> Debug for Shared<E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: ?Sized + Display> Display for Shared<E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: ?Sized + Error> Error for Shared<E> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

impl<E: ?Sized + Display> PartialEq for Shared<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl<E: ?Sized + Display> Eq for Shared<E> {}

/// `error` and its sources on one line, joined with `: ` (a newline inside one is written
/// `\\n`); a source whose text the line already holds (many errors repeat their cause in their
/// own message) is left out.
pub(crate) fn chain(error: &(dyn Error + '_)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text.replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl Display for Layer {
        fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|l| l as &(dyn Error + 'static))
        }
    }

    #[test]
    fn a_chain_joins_the_sources_and_skips_repeats() {
        let inner = Layer("connection refused", None);
        let middle = Layer(
            "tcp connect error: connection refused",
            Some(Box::new(inner)),
        );
        let outer = Layer("error sending request", Some(Box::new(middle)));
        assert_eq!(
            chain(&outer),
            "error sending request: tcp connect error: connection refused"
        );
        assert_eq!(chain(&Layer("alone", None)), "alone");
        assert_eq!(chain(&Layer("two\nlines", None)), "two\\nlines");
    }

    #[test]
    fn shared_causes_compare_by_text_and_keep_their_source() {
        let a = Shared::new(Layer("x", Some(Box::new(Layer("y", None)))));
        let b = Shared::new(Layer("x", None));
        assert_eq!(a, b);
        assert_eq!(a.clone(), a);
        assert_ne!(a, Shared::new(Layer("z", None)));
        assert_eq!(a.source().map(|s| s.to_string()).as_deref(), Some("y"));
        assert_eq!(chain(&a), "x: y");
    }
}
