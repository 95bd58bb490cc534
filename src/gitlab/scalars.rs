//! Custom GraphQL scalars used by the generated operations.

/// GitLab's `BigInt`: sent as a JSON string (`"15234"`); a number is accepted too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BigInt(pub u64);

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

/// GraphQL `ID`.
pub type ID = String;

#[cfg(test)]
mod tests {
    use super::BigInt;

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
}
