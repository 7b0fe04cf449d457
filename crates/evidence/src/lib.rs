//! The evidence schema: why two pages were matched ([`Rule`]), every score the run computed
//! ([`Evidence`]), and the columns every row that says two pages match carries ([`COLUMNS`]).
//! This is the one place those columns are named and typed: row structs get them from
//! [`evidence_row!`] and fill them with [`with_evidence!`]; the Python tables, the service's
//! answers and `openapi.yaml` are checked against [`COLUMNS`] by tests.
//!
//! ```
//! use neardup_evidence::{evidence_row, with_evidence, Evidence, Rule, TitleMatch};
//!
//! evidence_row! {
//!     /// A matched page.
//!     #[derive(serde::Serialize)]
//!     pub struct Row {
//!         /// Its URL.
//!         pub url: String,
//!     }
//! }
//! let e = Evidence {
//!     rule: Rule::LshBands, b_similarity: 0, estimated_jaccard: 0.9, exact_jaccard: None,
//!     c_similarity: None, same_site: true, rp_distance: None, hm_distance: None,
//!     containment: 0.9, titles: TitleMatch::Unknown, boilerplate_a: 0.0, boilerplate_b: 0.0,
//!     shared_shingles: 120,
//! };
//! let row = with_evidence!(Row { url: "https://a.example/".into() }, e);
//! assert_eq!(row.estimated_jaccard, 0.9);
//! ```

use serde::Serialize;

/// Why two pages were matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Same token sequence.
    IdenticalTokens,
    /// Enough agreeing supershingles.
    Supershingles,
    /// An LSH band collision with a high enough estimated Jaccard.
    LshBands,
    /// Enough agreeing simhash bits (Alg. C).
    Simhash,
    /// B-similar and enough agreeing simhash bits (the combined algorithm).
    Combined,
    /// RP and HM signatures within the `(C, D)` tolerances (paper 000).
    RpHm,
}

impl Rule {
    /// The name every table and answer gives it (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            Rule::IdenticalTokens => "identical-tokens",
            Rule::Supershingles => "supershingles",
            Rule::LshBands => "lsh-bands",
            Rule::Simhash => "simhash",
            Rule::Combined => "combined",
            Rule::RpHm => "rp-hm",
        }
    }
}

/// Whether two pages' titles name the same item (decided by `neardup_dedup::Titles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TitleMatch {
    /// The titles share a segment that is not a site name.
    Same,
    /// They share none: the pages are about different items.
    Different,
    /// Either title says nothing beyond its site (or there is none).
    Unknown,
    /// The titles name the same item but the pages are written in two writing systems: a
    /// translation, held apart as pages naming different items are.
    Translation,
}

impl TitleMatch {
    /// The name every table gives it (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            TitleMatch::Same => "same",
            TitleMatch::Different => "different",
            TitleMatch::Unknown => "unknown",
            TitleMatch::Translation => "translation",
        }
    }
}

impl From<Option<bool>> for TitleMatch {
    fn from(v: Option<bool>) -> TitleMatch {
        match v {
            Some(true) => TitleMatch::Same,
            Some(false) => TitleMatch::Different,
            None => TitleMatch::Unknown,
        }
    }
}

/// The evidence for a match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// Which rule matched.
    pub rule: Rule,
    /// Agreeing supershingles (of `m'`).
    pub b_similarity: u32,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: f64,
    /// Exact Jaccard of the shingle sets, when both pages kept theirs: small pages (at most
    /// `exact_sets` shingles), every page with `--verify`.
    pub exact_jaccard: Option<f64>,
    /// Agreeing simhash bits, when simhashes were computed.
    pub c_similarity: Option<u32>,
    /// Both pages on one site (under the configured site rule).
    pub same_site: bool,
    /// `||R_a - R_b||inf` of the normalized random projections, for rp-hm runs.
    pub rp_distance: Option<f64>,
    /// `||X_a - X_b||inf` of the hyperlink maps, for rp-hm runs.
    pub hm_distance: Option<f64>,
    /// Share of the smaller page's shingles found in the larger one (from [`Evidence::jaccard`]
    /// and the two pages' shingle counts; estimated unless the Jaccard is exact): a print view
    /// is contained in its article.
    pub containment: f64,
    /// Whether the titles name the same item (site names set aside).
    pub titles: TitleMatch,
    /// Share of each page left out of its signature: navigation, sidebars and other chrome,
    /// and host boilerplate.
    pub boilerplate_a: f64,
    /// The same for the second page.
    pub boilerplate_b: f64,
    /// Distinct shingles the two pages share (from [`Evidence::jaccard`] and the two pages'
    /// shingle counts: `J (|A| + |B|) / (1 + J)`, rounded; estimated unless the Jaccard is
    /// exact): how much text they have in common, whatever the rest of each page holds.
    pub shared_shingles: u32,
}

impl Evidence {
    /// The Jaccard similarity the decisions use: the exact one when both shingle sets were
    /// kept, else the estimate.
    pub fn jaccard(&self) -> f64 {
        self.exact_jaccard.unwrap_or(self.estimated_jaccard)
    }
}

/// The type of an evidence column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text (a rule's or a title verdict's name).
    Text,
    /// An unsigned integer.
    UInt,
    /// A float.
    Float,
}

/// One evidence column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name in every table, answer and schema.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Whether it may be null (a score not computed by the run's method).
    pub nullable: bool,
}

const fn col(name: &'static str, kind: Kind, nullable: bool) -> Column {
    Column {
        name,
        kind,
        nullable,
    }
}

/// The evidence columns, in the order every row carries them (the fields [`evidence_row!`]
/// appends; a unit test ties the two).
pub const COLUMNS: [Column; 12] = [
    col("rule", Kind::Text, false),
    col("b_similarity", Kind::UInt, false),
    col("estimated_jaccard", Kind::Float, false),
    col("exact_jaccard", Kind::Float, true),
    col("c_similarity", Kind::UInt, true),
    col("rp_distance", Kind::Float, true),
    col("hm_distance", Kind::Float, true),
    col("containment", Kind::Float, false),
    col("titles", Kind::Text, false),
    col("boilerplate_a", Kind::Float, false),
    col("boilerplate_b", Kind::Float, false),
    col("shared_shingles", Kind::UInt, false),
];

/// The values of the evidence columns of one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Columns {
    /// Which rule matched.
    pub rule: Rule,
    /// Agreeing supershingles.
    pub b_similarity: u32,
    /// Share of agreeing minvalues.
    pub estimated_jaccard: f64,
    /// Exact Jaccard, when both shingle sets were kept.
    pub exact_jaccard: Option<f64>,
    /// Agreeing simhash bits, when computed.
    pub c_similarity: Option<u32>,
    /// Random-projection distance (rp-hm).
    pub rp_distance: Option<f64>,
    /// Hyperlink-map distance (rp-hm).
    pub hm_distance: Option<f64>,
    /// Estimated containment.
    pub containment: f64,
    /// The titles' verdict.
    pub titles: TitleMatch,
    /// Share of the first page left out of its signature.
    pub boilerplate_a: f64,
    /// The same for the second page.
    pub boilerplate_b: f64,
    /// Distinct shingles the two pages share.
    pub shared_shingles: u32,
}

/// One cell of an evidence column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// [`Kind::Text`].
    Text(&'static str),
    /// [`Kind::UInt`] (`None`: null).
    UInt(Option<u32>),
    /// [`Kind::Float`] (`None`: null).
    Float(Option<f64>),
}

impl Columns {
    /// The cell of column `i` of [`COLUMNS`].
    pub fn get(&self, i: usize) -> Value {
        match COLUMNS[i].name {
            "rule" => Value::Text(self.rule.name()),
            "b_similarity" => Value::UInt(Some(self.b_similarity)),
            "estimated_jaccard" => Value::Float(Some(self.estimated_jaccard)),
            "exact_jaccard" => Value::Float(self.exact_jaccard),
            "c_similarity" => Value::UInt(self.c_similarity),
            "rp_distance" => Value::Float(self.rp_distance),
            "hm_distance" => Value::Float(self.hm_distance),
            "containment" => Value::Float(Some(self.containment)),
            "titles" => Value::Text(self.titles.name()),
            "boilerplate_a" => Value::Float(Some(self.boilerplate_a)),
            "boilerplate_b" => Value::Float(Some(self.boilerplate_b)),
            _ => Value::UInt(Some(self.shared_shingles)),
        }
    }
}

impl From<&Evidence> for Columns {
    fn from(e: &Evidence) -> Columns {
        Columns {
            rule: e.rule,
            b_similarity: e.b_similarity,
            estimated_jaccard: e.estimated_jaccard,
            exact_jaccard: e.exact_jaccard,
            c_similarity: e.c_similarity,
            rp_distance: e.rp_distance,
            hm_distance: e.hm_distance,
            containment: e.containment,
            titles: e.titles,
            boilerplate_a: e.boilerplate_a,
            boilerplate_b: e.boilerplate_b,
            shared_shingles: e.shared_shingles,
        }
    }
}

/// The column named `name`, if it is an evidence column.
pub fn column(name: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.name == name)
}

/// Defines a row struct: the fields given, then the evidence columns ([`COLUMNS`]).
#[macro_export]
macro_rules! evidence_row {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field : $ty, )*
            /// Which rule matched.
            pub rule: $crate::Rule,
            /// Agreeing supershingles (of `m'`).
            pub b_similarity: u32,
            /// Share of agreeing minvalues.
            pub estimated_jaccard: f64,
            /// Exact Jaccard of the shingle sets, when both pages kept theirs.
            pub exact_jaccard: Option<f64>,
            /// Agreeing simhash bits, when computed.
            pub c_similarity: Option<u32>,
            /// L-infinity distance of the random projections (rp-hm).
            pub rp_distance: Option<f64>,
            /// L-infinity distance of the hyperlink maps (rp-hm).
            pub hm_distance: Option<f64>,
            /// Estimated share of the smaller page found in the larger.
            pub containment: f64,
            /// Whether the titles name the same item (site names set aside): same, different,
            /// unknown.
            pub titles: $crate::TitleMatch,
            /// Share of the first page left out of its signature (chrome, host boilerplate).
            pub boilerplate_a: f64,
            /// The same for the second page.
            pub boilerplate_b: f64,
            /// Distinct shingles the two pages share (estimated unless the Jaccard is exact).
            pub shared_shingles: u32,
        }

        impl $name {
            /// The row's evidence columns.
            pub fn evidence_columns(&self) -> $crate::Columns {
                $crate::Columns {
                    rule: self.rule,
                    b_similarity: self.b_similarity,
                    estimated_jaccard: self.estimated_jaccard,
                    exact_jaccard: self.exact_jaccard,
                    c_similarity: self.c_similarity,
                    rp_distance: self.rp_distance,
                    hm_distance: self.hm_distance,
                    containment: self.containment,
                    titles: self.titles,
                    boilerplate_a: self.boilerplate_a,
                    boilerplate_b: self.boilerplate_b,
                    shared_shingles: self.shared_shingles,
                }
            }
        }
    };
}

/// A struct literal of a row made by [`evidence_row!`]: the fields given, the evidence
/// columns from an [`Evidence`].
#[macro_export]
macro_rules! with_evidence {
    ($row:ident { $($field:ident: $value:expr),* $(,)? }, $e:expr) => {{
        let e: &$crate::Evidence = &$e;
        $row {
            $($field: $value,)*
            rule: e.rule,
            b_similarity: e.b_similarity,
            estimated_jaccard: e.estimated_jaccard,
            exact_jaccard: e.exact_jaccard,
            c_similarity: e.c_similarity,
            rp_distance: e.rp_distance,
            hm_distance: e.hm_distance,
            containment: e.containment,
            titles: e.titles,
            boilerplate_a: e.boilerplate_a,
            boilerplate_b: e.boilerplate_b,
            shared_shingles: e.shared_shingles,
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    evidence_row! {
        #[derive(Serialize)]
        pub struct Row {
            pub url: String,
        }
    }

    fn evidence() -> Evidence {
        Evidence {
            rule: Rule::Combined,
            b_similarity: 3,
            estimated_jaccard: 0.5,
            exact_jaccard: Some(0.25),
            c_similarity: Some(300),
            same_site: false,
            rp_distance: Some(0.125),
            hm_distance: None,
            containment: 0.75,
            titles: TitleMatch::Same,
            boilerplate_a: 0.0,
            boilerplate_b: 0.5,
            shared_shingles: 40,
        }
    }

    /// The macro's fields are the schema's columns, in order, with their types.
    #[test]
    fn rows_carry_the_columns_in_order_with_their_types() {
        let row = with_evidence!(Row { url: "u".into() }, evidence());
        let json = serde_json::to_value(&row).unwrap();
        let map = json.as_object().unwrap();
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        let mut want = vec!["url"];
        want.extend(COLUMNS.iter().map(|c| c.name));
        let (mut sorted_keys, mut sorted_want) = (keys.clone(), want.clone());
        sorted_keys.sort_unstable();
        sorted_want.sort_unstable();
        assert_eq!(sorted_keys, sorted_want);
        for c in &COLUMNS {
            let v = &map[c.name];
            let ok = match c.kind {
                Kind::Text => v.is_string(),
                Kind::UInt => v.is_u64() || (c.nullable && v.is_null()),
                Kind::Float => v.is_f64() || (c.nullable && v.is_null()),
            };
            assert!(ok, "{}: {v}", c.name);
        }
        let cols = row.evidence_columns();
        assert_eq!(cols, Columns::from(&evidence()));
        for (i, c) in COLUMNS.iter().enumerate() {
            let want = match cols.get(i) {
                Value::Text(t) => {
                    assert_eq!(c.kind, Kind::Text);
                    serde_json::json!(t)
                }
                Value::UInt(v) => {
                    assert_eq!(c.kind, Kind::UInt);
                    serde_json::json!(v)
                }
                Value::Float(v) => {
                    assert_eq!(c.kind, Kind::Float);
                    serde_json::json!(v)
                }
            };
            assert_eq!(map[c.name], want, "{}", c.name);
        }
        assert!(map["hm_distance"].is_null());
        assert_eq!(map["rule"], "combined");
        assert_eq!(map["titles"], "same");
    }

    #[test]
    fn rule_names_are_the_serde_names() {
        for r in [
            Rule::IdenticalTokens,
            Rule::Supershingles,
            Rule::LshBands,
            Rule::Simhash,
            Rule::Combined,
            Rule::RpHm,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.name());
        }
    }

    #[test]
    fn every_column_is_found_by_name() {
        assert!(COLUMNS.iter().all(|c| column(c.name) == Some(c)));
        assert_eq!(column("url"), None);
    }
}
