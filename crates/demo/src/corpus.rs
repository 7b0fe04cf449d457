//! `corpus.jsonl` and its companions: documents made of the prose of the sample's 1.63.0 and
//! stable versions, with planted
//! near-duplicates, a notice paragraph repeated across documents and a few documents in other
//! languages; `rows.parquet` (an earlier dump), `pages.jsonl.zst` (other field names) and
//! `eval.jsonl` (a benchmark, partly leaked into the corpus).

use crate::sample::Sample;
use crate::text::{paragraphs, words};
use crate::{DemoError, Files};
use std::sync::Arc;

/// The paragraph a third of the documents end with (boilerplate for `neardup paragraphs`).
pub(crate) const NOTICE: &str = "This page is part of the Rust documentation, copied into the neardup demo corpus; the Rust project publishes it under the terms of the MIT and Apache 2.0 licenses.";

/// Documents in other languages (for `--per-language`), written for the demo.
const OTHER_LANGUAGES: [(&str, &str); 6] = [
    ("fr-1", "Le marché du samedi ouvre très tôt sur la place de l'église. Les maraîchers arrivent avant le lever du soleil avec leurs cageots de poireaux, de carottes et de pommes de terre, et les habitués savent qu'il faut venir avant huit heures pour trouver les meilleurs fromages. Vers midi, les étals se vident et la place retrouve son calme habituel."),
    ("fr-2", "La bibliothèque municipale prolonge ses horaires pendant les vacances scolaires. Les enfants peuvent emprunter jusqu'à dix livres à la fois, et un atelier de lecture à voix haute a lieu chaque mercredi après-midi dans la salle du premier étage. L'inscription est gratuite pour tous les habitants de la commune et des villages voisins."),
    ("de-1", "Der Wanderweg führt zunächst am Ufer des Sees entlang und steigt dann durch einen dichten Buchenwald zur Hütte hinauf. Im Herbst ist der Weg wegen des nassen Laubs rutschig, deshalb sollte man feste Schuhe tragen und genug Wasser mitnehmen. Von der Hütte aus hat man bei klarem Wetter einen weiten Blick über das ganze Tal."),
    ("de-2", "Die Stadtwerke erneuern in den kommenden Wochen die Wasserleitungen in der Bahnhofstraße. Während der Bauarbeiten ist die Straße nur in einer Richtung befahrbar, und die Bushaltestelle wird vorübergehend um hundert Meter verlegt. Anwohner erhalten rechtzeitig einen Brief, falls das Wasser für einige Stunden abgestellt werden muss."),
    ("es-1", "La receta tradicional de la tortilla lleva patatas, huevos, aceite de oliva y una pizca de sal. Algunas familias añaden cebolla y otras se niegan rotundamente, y la discusión puede durar toda una sobremesa. Lo importante es freír las patatas a fuego lento hasta que queden tiernas y dar la vuelta a la tortilla con decisión."),
    ("es-2", "El ayuntamiento ha abierto el plazo de inscripción para los cursos de natación del verano. Las clases se imparten por la mañana en la piscina municipal y están pensadas para niños de cuatro a doce años, agrupados según su nivel. Las plazas son limitadas, así que conviene inscribirse durante la primera semana."),
];

/// Documents of the corpus also in `rows.parquet`.
const EARLIER: usize = 60;

/// One document.
struct Doc {
    id: String,
    url: String,
    text: String,
}

pub(crate) fn write(sample: &Sample, files: &mut Files) -> Result<(), DemoError> {
    let mut docs: Vec<Doc> = Vec::new();
    let pages = ["1.63.0", "stable"]
        .into_iter()
        .flat_map(|v| sample.html(v));
    for p in pages {
        let paras = paragraphs(&String::from_utf8_lossy(&p.body));
        let text = paras.join("\n\n");
        if words(&text).len() < 40 {
            continue;
        }
        docs.push(Doc {
            id: format!("doc-{:04}", docs.len() + 1),
            url: p.url.clone(),
            text,
        });
    }
    for (i, d) in docs.iter_mut().enumerate() {
        if i % 3 == 0 {
            d.text.push_str("\n\n");
            d.text.push_str(NOTICE);
        }
    }
    // Near-duplicates: every 6th document again, one word added in its middle.
    let copies: Vec<Doc> = docs
        .iter()
        .enumerate()
        .filter(|(i, d)| i % 6 == 1 && words(&d.text).len() >= 80)
        .map(|(_, d)| {
            let mid = d.text.len() / 2;
            let at = d.text[mid..].find(' ').map(|i| mid + i).unwrap_or(mid);
            Doc {
                id: format!("{}-copy", d.id),
                url: format!(
                    "{}{}",
                    crate::weeks::MIRROR,
                    d.url.split("doc.rust-lang.org/").nth(1).unwrap_or("")
                ),
                text: format!("{} revised{}", &d.text[..at], &d.text[at..]),
            }
        })
        .collect();
    let first_copy = docs.len();
    docs.extend(copies);
    for (id, text) in OTHER_LANGUAGES {
        docs.push(Doc {
            id: format!("doc-{id}"),
            url: format!("https://news.example/{id}.html"),
            text: text.to_string(),
        });
    }
    let jsonl: String = docs
        .iter()
        .map(|d| serde_json::json!({"id": d.id, "url": d.url, "text": d.text}).to_string() + "\n")
        .collect();
    files.add("corpus.jsonl", jsonl.into_bytes());
    files.about(
        "corpus.jsonl",
        &format!(
            "{} documents (id, url, text): the sample's prose, {} near-duplicate copies (ids ending -copy), a notice paragraph in a third of them, 6 in French, German and Spanish",
            docs.len(),
            docs.len() - first_copy - OTHER_LANGUAGES.len()
        ),
    );
    let earlier = &docs[..EARLIER.min(docs.len())];
    files.add("rows.parquet", parquet_of(earlier)?);
    files.about(
        "rows.parquet",
        &format!(
            "an earlier dump: the corpus's first {EARLIER} documents (id, url, text), Parquet"
        ),
    );
    let renamed: String = docs
        .iter()
        .map(|d| serde_json::json!({"doc_id": d.id, "content": d.text}).to_string() + "\n")
        .collect();
    let zst = zstd::encode_all(renamed.as_bytes(), 3).map_err(|e| DemoError::Format {
        path: "pages.jsonl.zst".into(),
        message: e.to_string(),
    })?;
    files.add("pages.jsonl.zst", zst);
    files.about(
        "pages.jsonl.zst",
        "the corpus with other field names (doc_id, content), zstd-compressed",
    );
    eval(sample, &docs, files);
    Ok(())
}

/// Items of `eval.jsonl`.
const EVAL_ITEMS: usize = 12;

/// `eval.jsonl`: 12 items of up to 40 words; items 1-4 are passages of corpus documents (leaks), the
/// others prose of nightly pages whose paragraphs the corpus does not hold.
fn eval(sample: &Sample, docs: &[Doc], files: &mut Files) {
    let mut items = Vec::new();
    for d in docs.iter().step_by(25).take(4) {
        items.push(first_words(&d.text, 40));
    }
    let known: std::collections::HashSet<String> = docs
        .iter()
        .flat_map(|d| d.text.split("\n\n").map(str::to_string))
        .collect();
    'pages: for p in sample.html("nightly").into_iter().rev() {
        for para in paragraphs(&String::from_utf8_lossy(&p.body)) {
            if items.len() == EVAL_ITEMS {
                break 'pages;
            }
            if words(&para).len() < 30 || known.contains(&para) {
                continue;
            }
            let text = first_words(&para, 40);
            if !items.contains(&text) && !docs.iter().any(|d| d.text.contains(&text)) {
                items.push(text);
            }
        }
    }
    let jsonl: String = items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({"id": format!("q{:02}", i + 1), "text": t}).to_string() + "\n"
        })
        .collect();
    files.add("eval.jsonl", jsonl.into_bytes());
    files.about(
        "eval.jsonl",
        &format!(
            "a benchmark of {} items (id, text); q01-q04 leaked into the corpus",
            items.len()
        ),
    );
}

fn first_words(text: &str, n: usize) -> String {
    text.split_whitespace()
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Documents as a Parquet file: `id`, `url`, `text` (UTF-8), one row group, Snappy.
fn parquet_of(docs: &[Doc]) -> Result<Vec<u8>, DemoError> {
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let err = |e: parquet::errors::ParquetError| DemoError::Format {
        path: "rows.parquet".into(),
        message: e.to_string(),
    };
    let schema = parquet::schema::parser::parse_message_type(
        "message document { REQUIRED BYTE_ARRAY id (STRING); REQUIRED BYTE_ARRAY url (STRING); REQUIRED BYTE_ARRAY text (STRING); }",
    )
    .map_err(err)?;
    let props = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut buf = Vec::new();
    let mut w =
        SerializedFileWriter::new(&mut buf, Arc::new(schema), Arc::new(props)).map_err(err)?;
    let mut rg = w.next_row_group().map_err(err)?;
    let columns: [fn(&Doc) -> &str; 3] = [|d| &d.id, |d| &d.url, |d| &d.text];
    for column in columns {
        let Some(mut c) = rg.next_column().map_err(err)? else {
            break;
        };
        let values: Vec<ByteArray> = docs.iter().map(|d| ByteArray::from(column(d))).collect();
        c.typed::<ByteArrayType>()
            .write_batch(&values, None, None)
            .map_err(err)?;
        c.close().map_err(err)?;
    }
    rg.close().map_err(err)?;
    w.close().map_err(err)?;
    Ok(buf)
}
