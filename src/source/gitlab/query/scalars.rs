//! Custom GraphQL scalars used by the generated operations, and the GraphQL form of
//! [`RefType`].

use crate::resolve::ref_name::RefType;

/// GitLab's `BigInt`: sent as a JSON string (`"15234"`); a number is accepted too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BigInt(pub u64);

impl<'de> serde::Deserialize<'de> for BigInt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw<'a> {
            Number(u64),
            #[serde(borrow)]
            Text(std::borrow::Cow<'a, str>),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(BigInt(n)),
            Raw::Text(s) => s
                .trim()
                .parse()
                .map(BigInt)
                .map_err(|_| serde::de::Error::custom(format!("BigInt '{s}' is not a number"))),
        }
    }
}

impl serde::Serialize for BigInt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

/// GitLab's `Time`: ISO 8601 with the author's offset, kept as sent.
pub(crate) type Time = String;

/// A blob's `rawTextBlob`, kept as the raw JSON string literal until [`BlobText::decode`].
///
/// GitLab's schema types the field `String`; our codegen subset declares it as this scalar so
/// that a 10 MiB file is copied out of the response once, verbatim, and decoded once into an
/// exactly-sized `String` after the response body is gone (see `json_text`).
#[derive(Debug, Clone)]
pub(crate) struct BlobText(Box<serde_json::value::RawValue>);

impl BlobText {
    /// The decoded text.
    pub(crate) fn decode(
        self,
    ) -> Result<String, crate::source::gitlab::wire::json_text::JsonTextError> {
        crate::source::gitlab::wire::json_text::decode(self.0.get())
    }

    /// The decoded length in bytes, without decoding.
    pub(crate) fn decoded_len(&self) -> usize {
        crate::source::gitlab::wire::json_text::decoded_len(self.0.get())
    }

    /// The length of the raw literal, quotes and escapes included: the work of decoding it.
    pub(crate) fn literal_len(&self) -> usize {
        self.0.get().len()
    }
}

impl PartialEq for BlobText {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl<'de> serde::Deserialize<'de> for BlobText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        if !raw.get().starts_with('"') {
            return Err(serde::de::Error::custom("rawTextBlob is not a string"));
        }
        Ok(BlobText(raw))
    }
}

impl serde::Serialize for BlobText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// `ref_type` as GitLab's GraphQL `RefType` enum.
impl serde::Serialize for RefType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_graphql())
    }
}

impl RefType {
    /// The GraphQL `RefType` enum value: `"HEADS"` or `"TAGS"`.
    pub(crate) fn as_graphql(self) -> &'static str {
        match self {
            RefType::Heads => "HEADS",
            RefType::Tags => "TAGS",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BigInt, RefType};

    #[test]
    fn blob_text_stays_raw_until_decoded() {
        use super::BlobText;
        let t: Option<BlobText> = serde_json::from_str(r#""a\nb""#).unwrap();
        let t = t.unwrap();
        assert_eq!(t.decoded_len(), 3);
        assert_eq!(t.decode().unwrap(), "a\nb");
        let none: Option<BlobText> = serde_json::from_str("null").unwrap();
        assert!(none.is_none());
        assert!(serde_json::from_str::<BlobText>("12").is_err());
    }

    #[test]
    fn bigint_from_string_or_number() {
        assert_eq!(
            serde_json::from_str::<BigInt>("\"15234\"").unwrap(),
            BigInt(15234)
        );
        assert_eq!(serde_json::from_str::<BigInt>("17").unwrap(), BigInt(17));
        assert!(serde_json::from_str::<BigInt>("\"x\"").is_err());
        assert!(serde_json::from_str::<BigInt>("-1").is_err());
    }

    #[test]
    fn ref_type_graphql() {
        assert_eq!(RefType::Heads.as_graphql(), "HEADS");
        assert_eq!(RefType::Tags.as_graphql(), "TAGS");
    }
}
