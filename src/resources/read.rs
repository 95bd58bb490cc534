//! `resources/read`: a resource URI read as a `get_repository_file` call with the default
//! view (the longest window a call may ask, within the server's character budget), its
//! content as a text resource with its extension's MIME type ([`mime`]). A file past the
//! budget gives its first window, and the read's own hint, which names the exact
//! `get_repository_file` call that reads on. A binary file, which the call refuses as text, is
//! read again for its bytes and served whole as a blob resource (base64), up to
//! [`MAX_BLOB_BYTES`]; past that, one sentence says where to get it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{ReadResourceResult, ResourceContents};
use serde_json::{Map, Value, json};

use super::error::{ResourceError, TooLargeBlob};
use super::mime;
use super::uri::{self, FileUri};
use crate::limits::MAX_BLOB_BYTES;
use crate::reader::caller::CallerContext;
use crate::reader::{FileBytes, ReadError, Reader};
use crate::view::ViewError;
use crate::window::MAX_LIMIT;

/// Reads the file `uri` names for `who`.
pub(crate) async fn read(
    reader: &Reader,
    uri: &str,
    local: bool,
    who: CallerContext<'_>,
) -> Result<ReadResourceResult, ResourceError> {
    let named = uri::parse(uri, local).map_err(ResourceError::Uri)?;
    let arguments = arguments(&named);
    let answer = match reader.read(Some(&arguments), who).await {
        Ok(answer) => answer,
        Err(ReadError::View(ViewError::Binary { .. })) => {
            let file = reader
                .bytes(Some(&arguments), MAX_BLOB_BYTES, who)
                .await
                .map_err(ResourceError::Read)?;
            return blob(file, uri, &named).map(|c| ReadResourceResult::new(vec![c]));
        }
        Err(e) => return Err(ResourceError::Read(e)),
    };
    let text = text(&answer, &arguments);
    let path = answer["path"].as_str().unwrap_or(uri);
    let contents = ResourceContents::text(text, uri).with_mime_type(mime::of_text(path));
    Ok(ReadResourceResult::new(vec![contents]))
}

/// A binary file's bytes as a blob resource with its MIME type, or the refusal of one past
/// [`MAX_BLOB_BYTES`], naming where to get it.
fn blob(file: FileBytes, uri: &str, named: &FileUri) -> Result<ResourceContents, ResourceError> {
    let Some(bytes) = file.bytes else {
        return Err(ResourceError::TooLargeBlob(TooLargeBlob {
            path: file.path.clone(),
            size_bytes: file.size_bytes,
            limit: MAX_BLOB_BYTES,
            elsewhere: elsewhere(&file, named),
        }));
    };
    let encoded = STANDARD.encode(&bytes);
    Ok(ResourceContents::blob(encoded, uri).with_mime_type(mime::of_binary(&file.path)))
}

/// Where to get a file a resource does not serve: GitLab's raw URL of the file (the blob URL
/// with `/-/raw/`), or `git show` in the local repository.
fn elsewhere(file: &FileBytes, named: &FileUri) -> String {
    match (named, &file.project) {
        (FileUri::Url(url), Some(_)) if url.contains("/-/blob/") => format!(
            "download it from GitLab at {}",
            url.replacen("/-/blob/", "/-/raw/", 1)
        ),
        _ => format!(
            "read it with git in the repository: git show {}",
            shell_quoted(&format!("{}:{}", file.git_ref, file.path))
        ),
    }
}

/// `word` as one POSIX shell word: in single quotes, each `'` in it closed, escaped and
/// reopened (`it's` → `'it'\''s'`).
fn shell_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The tool's arguments for what a URI names: the whole file, as far as a window goes.
pub(crate) fn arguments(named: &FileUri) -> Map<String, Value> {
    let value = match named {
        FileUri::Url(url) => json!({"url": url, "limit": MAX_LIMIT}),
        FileUri::Local { path, git_ref } => {
            let mut v = json!({"file_path": path, "limit": MAX_LIMIT});
            if let Some(r) = git_ref {
                v["ref"] = r.clone().into();
            }
            v
        }
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The resource's text: the window's content, and when the window is not the whole file, a
/// last line naming the `get_repository_file` call that reads on.
fn text(answer: &Value, arguments: &Map<String, Value>) -> String {
    let mut text = answer["content"].as_str().unwrap_or_default().to_string();
    if let Some(line) = read_on(answer, arguments) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("\n[");
        text.push_str(&line);
        text.push_str("]\n");
    }
    text
}

/// One sentence for a window that is not the whole file: the lines shown and the exact call
/// that reads on (this read's arguments, with the next window's from the read's hint); the
/// read's hint itself when it names no call.
fn read_on(answer: &Value, arguments: &Map<String, Value>) -> Option<String> {
    let metadata = &answer["metadata"];
    if metadata["truncated"] != true {
        return None;
    }
    let hint = answer["system_instruction"].as_str()?;
    let Some(next) = first_object(hint) else {
        return Some(hint.to_string());
    };
    let mut call = arguments.clone();
    call.extend(next);
    let call = Value::Object(call);
    let shown = match (
        metadata["returned_lines"]["start"].as_u64(),
        metadata["returned_lines"]["end"].as_u64(),
        metadata["total_lines"].as_u64(),
    ) {
        (Some(start), Some(end), Some(total)) => {
            format!("Lines {start}-{end} of {total} are shown")
        }
        _ => "Part of the file is shown".to_string(),
    };
    Some(format!(
        "{shown}; read the rest with get_repository_file {call}."
    ))
}

/// The first JSON object written in `hint`: the next call's arguments.
fn first_object(hint: &str) -> Option<Map<String, Value>> {
    let start = hint.find('{')?;
    let mut objects = serde_json::Deserializer::from_str(&hint[start..]).into_iter();
    objects.next()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_file_is_its_content() {
        let answer = json!({"content": "a\nb\n", "metadata": {"truncated": false}});
        assert_eq!(text(&answer, &Map::new()), "a\nb\n");
    }

    #[test]
    fn a_cut_file_ends_with_the_call_that_reads_on() {
        let answer = json!({
            "system_instruction": "File truncated. To view more, call again with {\"offset\": 2, \"limit\": 2000}. Budget.",
            "metadata": {"total_lines": 9, "returned_lines": {"start": 1, "end": 2}, "truncated": true},
            "content": "a\nb"
        });
        let named = FileUri::Url("https://g/p/-/blob/main/a".into());
        assert_eq!(
            text(&answer, &arguments(&named)),
            "a\nb\n\n[Lines 1-2 of 9 are shown; read the rest with get_repository_file \
{\"url\":\"https://g/p/-/blob/main/a\",\"limit\":2000,\"offset\":2}.]\n"
        );
    }

    fn file(project: Option<&str>, bytes: Option<Vec<u8>>) -> FileBytes {
        FileBytes {
            path: "img/logo.png".into(),
            git_ref: "main".into(),
            size_bytes: 3,
            project: project.map(str::to_string),
            bytes,
        }
    }

    #[test]
    fn a_binary_file_is_a_base64_blob_with_its_type() {
        let named = FileUri::Local {
            path: "img/logo.png".into(),
            git_ref: None,
        };
        let blob = blob(
            file(None, Some(vec![0x89, b'P', 0])),
            "repo:///img/logo.png",
            &named,
        );
        assert_eq!(
            serde_json::to_value(blob.unwrap()).unwrap(),
            json!({"uri": "repo:///img/logo.png", "mimeType": "image/png", "blob": "iVAA"})
        );
    }

    #[test]
    fn a_binary_file_past_the_limit_names_where_to_get_it() {
        let url = "https://g.example/grp/p/-/blob/main/img/logo.png";
        let named = FileUri::Url(url.into());
        let refused = blob(file(Some("grp/p"), None), url, &named).unwrap_err();
        assert!(
            refused.to_string().ends_with(
                "download it from GitLab at https://g.example/grp/p/-/raw/main/img/logo.png."
            ),
            "{refused}"
        );
        let local = FileUri::Local {
            path: "img/logo.png".into(),
            git_ref: None,
        };
        let refused = blob(file(None, None), "repo:///img/logo.png", &local).unwrap_err();
        assert!(
            refused
                .to_string()
                .ends_with("read it with git in the repository: git show 'main:img/logo.png'."),
            "{refused}"
        );
    }

    #[test]
    fn a_path_with_quotes_is_one_shell_word() {
        assert_eq!(shell_quoted("main:a.txt"), "'main:a.txt'");
        assert_eq!(shell_quoted("main:it's"), r"'main:it'\''s'");
        assert_eq!(shell_quoted("''"), r"''\'''\'''");
        assert_eq!(shell_quoted("$(rm -rf /)`x`"), "'$(rm -rf /)`x`'");
    }

    #[test]
    fn a_local_uri_becomes_file_path_and_ref() {
        let named = FileUri::Local {
            path: "a.rs".into(),
            git_ref: Some("v1".into()),
        };
        let args = Value::Object(arguments(&named));
        assert_eq!(
            args,
            json!({"file_path": "a.rs", "limit": MAX_LIMIT, "ref": "v1"})
        );
    }
}
