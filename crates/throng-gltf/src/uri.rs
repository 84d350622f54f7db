//! What a buffer or image `uri` says, before anything touches the filesystem (glTF 2.0 §2.8,
//! RFC 3986): a `data:` URI, or a relative path of decoded segments. Everything that could name
//! a file outside the asset's folder without a `..` (absolute paths, drive letters, hosts, other
//! schemes) is refused here; `..` is resolved against the asset folder by [`crate::confine`].

/// Why a URI is refused. Shown after the URI in [`crate::ImportErrorKind::UnsafeUri`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriProblem {
    #[error("is an absolute path")]
    Absolute,
    #[error("names a host (a `//host/...` or `\\\\host\\...` reference)")]
    Host,
    #[error("uses the URI scheme {0:?}; only relative paths and data: URIs are read")]
    Scheme(String),
    #[error("is empty")]
    Empty,
    #[error("contains a NUL character")]
    Nul,
    #[error("leads outside the asset folder")]
    Escapes,
    #[error("goes through a symbolic link that leads outside the asset folder")]
    SymlinkEscapes,
    #[error("goes through more than {0} symbolic links")]
    SymlinkLoop(usize),
    #[error("names a {0}, not a regular file")]
    NotRegularFile(&'static str),
}

/// One step of a relative path after percent-decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// `..`: the parent folder.
    Up,
    /// A file or folder name (never empty, `.`, `..`, or containing a separator).
    Name(String),
}

/// A parsed `uri`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum UriRef<'a> {
    /// `data:[<mediatype>][;base64],<payload>`; `base64` says whether the header ends with
    /// `;base64`, `payload` is `None` when there is no `,`. The media type is not trusted: image
    /// bytes are sniffed, buffer bytes have no type.
    Data {
        base64: bool,
        payload: Option<&'a str>,
    },
    /// A relative reference, `.` and empty segments dropped, `..` kept for the resolver.
    Path(Vec<Segment>),
}

/// Parses a URI reference.
pub(crate) fn parse(uri: &str) -> Result<UriRef<'_>, UriProblem> {
    if let Some(scheme) = scheme(uri) {
        if scheme.eq_ignore_ascii_case("data") {
            let rest = &uri[scheme.len() + 1..];
            let (header, payload) = match rest.split_once(',') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            };
            return Ok(UriRef::Data {
                base64: header.ends_with(";base64"),
                payload,
            });
        }
        // One letter before `:` is a Windows drive (`C:\x`, `C:x`), not a scheme.
        if scheme.len() == 1 {
            return Err(UriProblem::Absolute);
        }
        return Err(UriProblem::Scheme(scheme.to_string()));
    }
    // The query and fragment are not part of the path (RFC 3986 §3.3).
    let path = uri.split(['?', '#']).next().unwrap_or("");
    if path.is_empty() {
        return Err(UriProblem::Empty);
    }
    // Decoded before it is split, so that `%2F` and `%5C` separate and `%2e%2e` is `..`.
    let decoded = percent_decode(path);
    if decoded.contains('\0') {
        return Err(UriProblem::Nul);
    }
    // Backslashes separate too: Windows exporters write them, and on Windows they would.
    let is_sep = |c: char| c == '/' || c == '\\';
    let mut chars = decoded.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if is_sep(a) && is_sep(b) => return Err(UriProblem::Host),
        (Some(a), _) if is_sep(a) => return Err(UriProblem::Absolute),
        _ => {}
    }
    let mut segments = Vec::new();
    for s in decoded.split(is_sep) {
        match s {
            "" | "." => {}
            ".." => segments.push(Segment::Up),
            name => {
                if !is_plain_name(name) {
                    return Err(UriProblem::Absolute);
                }
                segments.push(Segment::Name(name.to_string()));
            }
        }
    }
    Ok(UriRef::Path(segments))
}

/// The scheme of an absolute URI (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`, `.`,
/// then `:`, before any `/`, `?` or `#`).
fn scheme(uri: &str) -> Option<&str> {
    let end = uri.find([':', '/', '?', '#', '\\'])?;
    if uri.as_bytes()[end] != b':' {
        return None;
    }
    let s = &uri[..end];
    let mut bytes = s.bytes();
    let first = bytes.next()?;
    (first.is_ascii_alphabetic()
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
    .then_some(s)
}

/// Whether `name` is one ordinary path component on this platform: on Windows a segment such as
/// `C:` or `x:stream` would change drive or open an alternate stream when joined.
fn is_plain_name(name: &str) -> bool {
    let mut c = std::path::Path::new(name).components();
    matches!(
        (c.next(), c.next()),
        (Some(std::path::Component::Normal(n)), None) if n == name
    )
}

/// RFC 3986 percent-decoding of a relative URI path (glTF 2.0 §2.8: URIs are percent-encoded).
/// A `%` not followed by two hex digits stays as it is (as browsers do); bytes that are not
/// UTF-8 become U+FFFD and so name no file that could be reached by accident.
pub(crate) fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{parse, percent_decode, Segment as S, UriProblem as P, UriRef};

    fn names(v: &[&str]) -> UriRef<'static> {
        UriRef::Path(
            v.iter()
                .map(|s| match *s {
                    ".." => S::Up,
                    n => S::Name(n.to_string()),
                })
                .collect(),
        )
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b.bin"), "a b.bin");
        assert_eq!(percent_decode("plain.bin"), "plain.bin");
        assert_eq!(percent_decode("bad%2"), "bad%2");
        assert_eq!(percent_decode("end%41"), "endA");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(parse("a.bin"), Ok(names(&["a.bin"])));
        assert_eq!(
            parse("Textures/Base%20Color.png"),
            Ok(names(&["Textures", "Base Color.png"]))
        );
        assert_eq!(parse("./a//b/./c"), Ok(names(&["a", "b", "c"])));
        assert_eq!(parse("a.bin?v=2#frag"), Ok(names(&["a.bin"])));
        assert_eq!(parse("sub\\a.bin"), Ok(names(&["sub", "a.bin"])));
        // Decoded before splitting: encoded dots and separators are dots and separators.
        assert_eq!(
            parse("%2e%2e/%2E%2E%2fetc%5Cpasswd"),
            Ok(names(&["..", "..", "etc", "passwd"]))
        );
        // Decoded once: `%252e` is the name `%2e`, not `.`.
        assert_eq!(parse("%252e%252e"), Ok(names(&["%2e%2e"])));
        assert_eq!(parse("./a:b.bin"), Ok(names(&["a:b.bin"])));
    }

    #[test]
    fn refused_forms() {
        assert_eq!(parse("/etc/passwd"), Err(P::Absolute));
        assert_eq!(parse("%2Fetc%2Fpasswd"), Err(P::Absolute));
        assert_eq!(parse("\\etc\\passwd"), Err(P::Absolute));
        assert_eq!(parse("//host/share/a.bin"), Err(P::Host));
        assert_eq!(parse("\\\\host\\share\\a.bin"), Err(P::Host));
        assert_eq!(parse("C:\\Windows\\win.ini"), Err(P::Absolute));
        assert_eq!(parse("c:/x.bin"), Err(P::Absolute));
        assert_eq!(parse("file:///etc/passwd"), Err(P::Scheme("file".into())));
        assert_eq!(parse("FILE:a.bin"), Err(P::Scheme("FILE".into())));
        assert_eq!(
            parse("https://example.com/a.bin"),
            Err(P::Scheme("https".into()))
        );
        assert_eq!(parse(""), Err(P::Empty));
        assert_eq!(parse("?x"), Err(P::Empty));
        assert_eq!(parse("a%00.bin"), Err(P::Nul));
    }

    #[test]
    fn data_uris() {
        assert_eq!(
            parse("data:application/octet-stream;base64,AAAA"),
            Ok(UriRef::Data {
                base64: true,
                payload: Some("AAAA")
            })
        );
        assert_eq!(
            parse("DATA:,x"),
            Ok(UriRef::Data {
                base64: false,
                payload: Some("x")
            })
        );
        assert_eq!(
            parse("data:image/png;base64"),
            Ok(UriRef::Data {
                base64: true,
                payload: None
            })
        );
    }
}
