//! Host-to-IP address files: lines `host,ip` (blank lines and `#` comments skipped), for crawls
//! whose records carry no `WARC-IP-Address`.

use crate::source::IngestError;
use std::collections::HashMap;
use std::path::Path;

/// Reads a `host,ip` file: lowercased host to its addresses, in file order.
pub fn read_hosts_ips(path: &Path) -> Result<HashMap<String, Vec<String>>, IngestError> {
    let text = std::fs::read_to_string(path).map_err(|source| IngestError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    parse_hosts_ips(&text).map_err(|(line, got)| IngestError::HostsFile {
        path: path.to_path_buf(),
        line,
        got,
    })
}

/// Parses `host,ip` lines; the error is the 1-based line number and what it held.
pub fn parse_hosts_ips(text: &str) -> Result<HashMap<String, Vec<String>>, (u64, String)> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((h, ip)) = line.split_once(',') else {
            return Err((i as u64 + 1, line.chars().take(80).collect()));
        };
        out.entry(h.trim().to_ascii_lowercase())
            .or_default()
            .push(ip.trim().to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_and_errors() {
        let m = parse_hosts_ips("# hosts\nA.example,10.0.0.1\n\na.example, 10.0.0.2\n").unwrap();
        assert_eq!(m["a.example"], ["10.0.0.1", "10.0.0.2"]);
        assert_eq!(parse_hosts_ips("ok,1.2.3.4\nbroken\n").unwrap_err().0, 2);
    }
}
