//! The top floor of the GitLab source: the call's loop. One lookup ([`single`]) or many
//! ([`many`]), the validating request each is asked as ([`answer`]), the one way a reply is
//! finished ([`finish`]), and what every call shares ([`shared`]); and `search_repository`'s steps ([`find`]).
//!
//! May import every floor below: `content/`, `query/`, `rules/`, `wire/`.

pub(super) mod answer;
pub(super) mod find;
pub(super) mod finish;
pub(super) mod many;
pub(super) mod shared;
pub(super) mod single;
