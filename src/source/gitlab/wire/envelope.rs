//! GitLab's GraphQL answer envelope: `data` (possibly partial) and `errors`, and what the
//! errors say (an unknown field, an error confined to one field).

/// One GraphQL error as GitLab reports it.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub(crate) struct GraphqlError {
    pub message: String,
    #[serde(default)]
    pub extensions: Option<serde_json::Value>,
    #[serde(default)]
    pub path: Option<Vec<serde_json::Value>>,
}

impl GraphqlError {
    /// graphql-ruby's "Field 'x' doesn't exist on type 'Y'" (code `undefinedField`) for `field`.
    pub(crate) fn is_unknown_field(&self, field: &str) -> bool {
        let by_code = self.extensions.as_ref().is_some_and(|x| {
            x.get("code").and_then(|c| c.as_str()) == Some("undefinedField")
                && x.get("fieldName").and_then(|f| f.as_str()) == Some(field)
        });
        by_code
            || self
                .message
                .contains(&format!("Field '{field}' doesn't exist"))
    }

    /// Whether the error's `path` runs through `field` (an error confined to that field).
    pub(crate) fn is_under(&self, field: &str) -> bool {
        self.path
            .as_ref()
            .is_some_and(|p| p.iter().any(|s| s.as_str() == Some(field)))
    }
}

/// A GraphQL answer: data (possibly partial) and errors.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct GraphqlResponse<T> {
    pub data: Option<T>,
    #[serde(default)]
    pub errors: Option<Vec<GraphqlError>>,
}

impl<T> GraphqlResponse<T> {
    /// The errors, empty when there were none.
    pub(crate) fn errors(&self) -> &[GraphqlError] {
        self.errors.as_deref().unwrap_or_default()
    }

    /// Whether some error says the instance does not know `field`.
    pub(crate) fn lacks_field(&self, field: &str) -> bool {
        self.errors().iter().any(|e| e.is_unknown_field(field))
    }

    /// The error messages, joined with `; `, or `None` when there were none.
    pub(crate) fn error_messages(&self) -> Option<String> {
        let errors = self.errors();
        (!errors.is_empty()).then(|| {
            errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_field_detection() {
        let e: GraphqlError = serde_json::from_value(serde_json::json!({
            "message": "Field 'duoContextExclusionSettings' doesn't exist on type 'Project'",
            "extensions": {"code": "undefinedField", "typeName": "Project", "fieldName": "duoContextExclusionSettings"}
        })).unwrap();
        assert!(e.is_unknown_field("duoContextExclusionSettings"));
        assert!(!e.is_unknown_field("commit"));
        let r = GraphqlResponse::<()> {
            data: None,
            errors: Some(vec![e]),
        };
        assert!(r.lacks_field("duoContextExclusionSettings"));
        assert!(r.error_messages().unwrap().contains("doesn't exist"));
    }
}
