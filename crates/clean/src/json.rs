//! A JSON line's top-level fields found in place: where a field's value lies in the line's
//! bytes, so that one value can be replaced and every other byte kept as it was. Only the top
//! level is read; values are skipped by their syntax (strings with escapes, nested objects and
//! arrays), not parsed. A line that is not one JSON object gives nothing.

/// A string field's decoded value and where its JSON text lies in the line.
#[derive(Debug, PartialEq, Eq)]
pub struct StringField {
    /// The decoded value.
    pub value: String,
    span: (usize, usize),
}

impl StringField {
    /// The line with this field's value replaced by `new` (as a JSON string).
    pub fn replaced(&self, line: &[u8], new: &str) -> Vec<u8> {
        let encoded = serde_json::to_string(new).expect("a string serializes");
        let mut out = Vec::with_capacity(line.len() + encoded.len());
        out.extend_from_slice(&line[..self.span.0]);
        out.extend_from_slice(encoded.as_bytes());
        out.extend_from_slice(&line[self.span.1..]);
        out
    }
}

/// The byte span of the top-level field `key`'s value; of a repeated key, the last (the one the
/// page reader keeps).
fn value_span(line: &[u8], key: &str) -> Option<(usize, usize)> {
    let mut i = skip_ws(line, 0);
    if line.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = skip_ws(line, i);
        match line.get(i)? {
            b'}' => return found,
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = skip_string(line, i)?;
        let name: String = serde_json::from_slice(&line[i..key_end]).ok()?;
        i = skip_ws(line, key_end);
        if line.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(line, i + 1);
        let end = skip_value(line, i)?;
        if name == key {
            found = Some((i, end));
        }
        i = end;
    }
}

/// The top-level string field `key`, decoded.
pub fn string_field(line: &[u8], key: &str) -> Option<StringField> {
    let span = value_span(line, key)?;
    if line[span.0] != b'"' {
        return None;
    }
    let value: String = serde_json::from_slice(&line[span.0..span.1]).ok()?;
    Some(StringField { value, span })
}

/// The top-level field `key` as text when it is a string or a number (ids).
pub fn scalar_field(line: &[u8], key: &str) -> Option<String> {
    let (s, e) = value_span(line, key)?;
    match serde_json::from_slice::<serde_json::Value>(&line[s..e]).ok()? {
        serde_json::Value::String(v) => Some(v),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting at `i` (at its opening quote).
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < b.len() {
        // The next quote or escape, found a word at a time (a page's text is long).
        i += memchr::memchr2(b'"', b'\\', &b[i..])?;
        match b[i] {
            b'\\' => i += 2,
            _ => return Some(i + 1),
        }
    }
    None
}

/// The end of the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_field_is_found_past_nested_values_and_escapes() {
        let line = br#"{"meta": {"text": "no", "a": [1, "}", {"x": "\""}]}, "id": 7, "text": "caf\u00e9 \"q\"\n"}"#;
        let f = string_field(line, "text").unwrap();
        assert_eq!(f.value, "café \"q\"\n");
        assert_eq!(scalar_field(line, "id").as_deref(), Some("7"));
        let out = f.replaced(line, "new");
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"meta": {"text": "no", "a": [1, "}", {"x": "\""}]}, "id": 7, "text": "new"}"#
        );
        assert!(string_field(b"not json", "text").is_none());
        assert!(string_field(br#"{"text": 5}"#, "text").is_none());
        assert!(string_field(br#"{"other": "x"}"#, "text").is_none());
    }

    proptest! {
        /// Whatever the object, the field found is the one serde reads, and replacing it
        /// changes that field alone.
        #[test]
        fn the_span_is_the_field_serde_reads(
            fields in proptest::collection::btree_map("[a-z]{1,3}", any::<String>(), 0..5),
            text in any::<String>(),
            nested in any::<String>(),
        ) {
            let mut obj = serde_json::Map::new();
            for (k, v) in &fields {
                obj.insert(k.clone(), serde_json::Value::String(v.clone()));
            }
            obj.insert("nest".into(), serde_json::json!({"text": nested, "l": [nested, 1, null]}));
            obj.insert("text".into(), serde_json::Value::String(text.clone()));
            let line = serde_json::to_vec(&obj).unwrap();
            let f = string_field(&line, "text").unwrap();
            prop_assert_eq!(&f.value, &text);
            let out = f.replaced(&line, "replaced");
            let mut back: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&out).unwrap();
            prop_assert_eq!(back.remove("text").unwrap(), serde_json::json!("replaced"));
            obj.remove("text");
            prop_assert_eq!(back, obj);
        }
    }
}
