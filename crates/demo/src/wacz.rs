//! A WACZ writer for the world's packages: a zip of stored members (`archive/*.warc.gz`,
//! `pages/pages.jsonl`, `datapackage.json`, `datapackage-digest.json`), with the manifest keys
//! py-wacz and browsertrix-crawler write (`resources` with `path`, `hash`, `bytes`;
//! `relation.requires` with `filename` and `crawlId`). No `indexes/`: neardup reads the WARC
//! files themselves (a replay tool would want a CDX index). Fixed timestamps: the same bytes
//! every time.

use neardup_ingest::digest::sha1;

/// The zip's time for every member: 2026-11-09 00:00 (MS-DOS date and time).
const DOS_DATE: u16 = ((2026 - 1980) << 9) | (11 << 5) | 9;

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// A package of `warcs` (name, bytes), requiring `requires` (package file name, crawl id),
/// created at `created`, titled `title`.
pub(crate) fn package(
    warcs: &[(&str, &[u8])],
    requires: &[(&str, &str)],
    created: &str,
    title: &str,
) -> Vec<u8> {
    let mut members: Vec<(String, Vec<u8>)> = warcs
        .iter()
        .map(|(n, b)| (format!("archive/{n}"), b.to_vec()))
        .collect();
    let mut pages = String::from(
        "{\"format\": \"json-pages-1.0\", \"id\": \"pages\", \"title\": \"All Pages\"}\n",
    );
    for (n, b) in warcs {
        let src = neardup_ingest::open_bytes(
            b.to_vec(),
            neardup_ingest::Format::Warc,
            n,
            &neardup_ingest::ReadOptions::default(),
        );
        let Ok(mut src) = src else { continue };
        let mut page = neardup_ingest::Page::default();
        while let Ok(true) = src.next_page(&mut page) {
            if page.status == Some(200) {
                let id: String = sha1(page.url.as_bytes())[..8]
                    .iter()
                    .map(|x| format!("{x:02x}"))
                    .collect();
                pages.push_str(
                    &serde_json::json!({"id": id, "url": page.url, "ts": page.date}).to_string(),
                );
                pages.push('\n');
            }
        }
    }
    members.push(("pages/pages.jsonl".into(), pages.into_bytes()));
    let resources: Vec<serde_json::Value> = members
        .iter()
        .map(|(path, b)| {
            serde_json::json!({
                "name": path.rsplit('/').next().unwrap_or(path),
                "path": path,
                "hash": format!("sha256:{}", sha256_hex(b)),
                "bytes": b.len(),
            })
        })
        .collect();
    let mut dp = serde_json::json!({
        "profile": "data-package",
        "resources": resources,
        "created": created,
        "wacz_version": "1.1.1",
        "software": "neardup demo",
        "title": title,
    });
    if !requires.is_empty() {
        dp["relation"] = serde_json::json!({"requires": requires
            .iter()
            .map(|(f, c)| serde_json::json!({"filename": f, "crawlId": c}))
            .collect::<Vec<_>>()});
    }
    let dp = serde_json::to_vec_pretty(&dp).expect("JSON of JSON values");
    let digest = serde_json::json!({
        "path": "datapackage.json",
        "hash": format!("sha256:{}", sha256_hex(&dp)),
    });
    members.push(("datapackage.json".into(), dp));
    members.push((
        "datapackage-digest.json".into(),
        serde_json::to_vec_pretty(&digest).expect("JSON of JSON values"),
    ));
    zip(&members)
}

/// A zip of stored members (no ZIP64: the world's members are small).
fn zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let (crc, len) = (crc.sum(), data.len() as u32);
        let at = out.len() as u32;
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes()); // version needed
            v.extend_from_slice(&0u16.to_le_bytes()); // flags
            v.extend_from_slice(&0u16.to_le_bytes()); // stored
            v.extend_from_slice(&0u16.to_le_bytes()); // time
            v.extend_from_slice(&DOS_DATE.to_le_bytes());
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&len.to_le_bytes());
            v.extend_from_slice(&len.to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by
        common(&mut central);
        central.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&at.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (dir_at, dir_len) = (out.len() as u32, central.len() as u32);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    let n = members.len() as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&dir_len.to_le_bytes());
    out.extend_from_slice(&dir_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment
    out
}
