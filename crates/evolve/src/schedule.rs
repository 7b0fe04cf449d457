//! A recrawl schedule from a URL's history of captures (issue 40, beyond paper 004).
//!
//! A URL's captures give `n` intervals between consecutive visits, `X` of which saw its text
//! change ([`crate::change::Change::text_changed`]: a change of dates, counters or markup only
//! is no change). Cho and Garcia-Molina's estimator for "changed at least once between
//! visits" ("Estimating frequency of change", 2003) gives the rate of a Poisson process of
//! changes from them: `λ = -ln((n - X + 0.5) / (n + 0.5)) / Ī`, `Ī` the mean interval, biased
//! far less than `X / (n Ī)` when pages change more often than they are visited. The next visit
//! is due when the probability that the text changed since the last capture,
//! `1 - e^(-λ t)`, reaches [`ScheduleConfig::change_probability`], kept within
//! [`ScheduleConfig::min_days`] and [`ScheduleConfig::max_days`]; a URL that is gone or moved
//! is due after the longest interval.
//!
//! A URL seen a few times without a change would get a rate of zero and never be visited
//! again; its history is therefore joined by [`ScheduleConfig::prior_intervals`] pseudo
//! intervals that changed in the share its group's URLs changed (its host's, or the whole
//! collection's: empirical Bayes), so a quiet page is visited less often, never never.
//!
//! [`holdout`] checks a schedule the only honest way: the last capture of every URL is held
//! out, the schedule made from the others says whether it would have been fetched, and the
//! count of fetches saved is set against the text changes missed. Two readings are given:
//! *due now* assumes every URL was fetched at the capture before (a URL is fetched when its
//! interval is at most the gap), *spread* assumes a scheduler in its steady state, whose
//! visits of a URL with interval `T` fall on one crawl of every `T / gap`, the phase set by
//! the URL's hash (so a URL is fetched at the held-out crawl with share `gap / T`).

use crate::change::Change;
use serde::Serialize;

/// How eagerly to come back.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScheduleConfig {
    /// Come back when the text has changed with at least this probability.
    pub change_probability: f64,
    /// Never sooner than this many days.
    pub min_days: f64,
    /// Never later than this many days.
    pub max_days: f64,
    /// Pseudo intervals of the URL's group joined to its own history.
    pub prior_intervals: f64,
}

impl Default for ScheduleConfig {
    fn default() -> ScheduleConfig {
        ScheduleConfig {
            change_probability: 0.1,
            min_days: 1.0,
            max_days: 28.0,
            prior_intervals: 2.0,
        }
    }
}

/// One URL's next visit and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Intervals between the captures read.
    pub intervals: u32,
    /// Intervals that saw the text change.
    pub text_changes: u32,
    /// Share of its group's intervals that saw the text change (the prior).
    pub group_change_share: f64,
    /// Mean interval, in days.
    pub mean_interval_days: f64,
    /// Estimated text changes per day.
    pub rate_per_day: f64,
    /// Days from the last capture to the next visit.
    pub next_in_days: f64,
    /// Why, in words.
    pub reason: String,
}

/// Seconds since 1970 of an ISO 8601 UTC date (`2026-01-08T10:00:00Z`, fractions and a
/// missing time allowed); `None` when it is not one.
pub fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        std::str::from_utf8(b.get(r)?).ok()?.parse().ok()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&m) {
        return None;
    }
    let (hh, mm, ss) = if b.len() >= 19 {
        (num(11..13)?, num(14..16)?, num(17..19)?)
    } else {
        (0, 0, 0)
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3_600 + mm * 60 + ss)
}

/// An ISO 8601 UTC date of seconds since 1970 (`2026-01-08T10:00:00Z`).
pub fn format_date(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

/// Intervals and the intervals that saw the text change, of captures as [`plan`] takes them.
pub fn text_changes(captures: &[(i64, Option<Change>)]) -> (u32, u32) {
    let n = captures.len().saturating_sub(1) as u32;
    let x = captures
        .iter()
        .skip(1)
        .filter(|c| c.1.is_some_and(Change::text_changed))
        .count() as u32;
    (n, x)
}

/// The plan of a URL from its captures, oldest first: each capture's date (seconds) and how
/// it changed since the one before (`None` for the first); `group_share` is the share of
/// intervals of its group's URLs that saw the text change (see [`group_shares`]).
pub fn plan(captures: &[(i64, Option<Change>)], group_share: f64, cfg: &ScheduleConfig) -> Plan {
    let (intervals, text_changes) = text_changes(captures);
    let span_days = match (captures.first(), captures.last()) {
        (Some(a), Some(b)) => (b.0 - a.0) as f64 / 86_400.0,
        _ => 0.0,
    };
    let mean = if intervals > 0 {
        span_days / f64::from(intervals)
    } else {
        0.0
    };
    let k = cfg.prior_intervals.max(0.0);
    let group_share = group_share.clamp(0.0, 1.0);
    let n = f64::from(intervals) + k;
    let x = f64::from(text_changes) + k * group_share;
    let rate = if intervals > 0 && mean > 0.0 {
        -((n - x + 0.5) / (n + 0.5)).ln() / mean
    } else {
        0.0
    };
    let last = captures.last().and_then(|c| c.1);
    let (next, reason) = if matches!(last, Some(Change::Gone | Change::Moved)) {
        (
            cfg.max_days,
            format!(
                "{}: checked again after the longest interval",
                last.map_or("", Change::as_str)
            ),
        )
    } else if intervals == 0 {
        (
            cfg.min_days,
            "one capture: no history yet, visit soon".to_string(),
        )
    } else if rate <= 0.0 {
        (
            cfg.max_days,
            format!(
                "no text change in {intervals} intervals, nor in its group's: the longest \
                 interval"
            ),
        )
    } else {
        let t = -(1.0 - cfg.change_probability).ln() / rate;
        let t = t.clamp(cfg.min_days, cfg.max_days);
        (
            t,
            format!(
                "text changed in {text_changes} of {intervals} intervals ({:.0}% of its \
                 group's): {rate:.3}/day, P(changed) reaches {} after {t:.1} days",
                100.0 * group_share,
                cfg.change_probability
            ),
        )
    };
    Plan {
        intervals,
        text_changes,
        group_change_share: group_share,
        mean_interval_days: mean,
        rate_per_day: rate,
        next_in_days: next,
        reason,
    }
}

/// One URL's captures as [`holdout`] and [`group_shares`] read them.
#[derive(Clone, Copy, Debug)]
pub struct Series<'a> {
    /// The URL (its hash sets the phase of the spread reading).
    pub url: &'a str,
    /// Its group (its host, say), numbered from 0.
    pub group: u32,
    /// Its captures, oldest first, as [`plan`] takes them.
    pub captures: &'a [(i64, Option<Change>)],
    /// The series of its stable cluster's representative, when it is another URL's copy in
    /// every crawl of its history (paper 004): it is fetched when its representative is
    /// fetched and found changed.
    pub follows: Option<usize>,
}

/// Pseudo intervals of the whole collection joined to each group's own (a group of a few URLs
/// leans on the collection; a large one speaks for itself).
const COLLECTION_PRIOR: f64 = 20.0;

/// Each group's share of intervals that saw the text change, read from `histories` (each a
/// group and captures), joined by twenty pseudo intervals of the collection's
/// share.
pub fn group_shares<'a>(
    histories: impl IntoIterator<Item = (u32, &'a [(i64, Option<Change>)])>,
) -> Vec<f64> {
    let mut sums: Vec<(f64, f64)> = Vec::new();
    for (g, caps) in histories {
        let (n, x) = text_changes(caps);
        if sums.len() <= g as usize {
            sums.resize(g as usize + 1, (0.0, 0.0));
        }
        sums[g as usize].0 += f64::from(n);
        sums[g as usize].1 += f64::from(x);
    }
    let (n, x) = sums.iter().fold((0.0, 0.0), |(n, x), s| (n + s.0, x + s.1));
    let all = if n > 0.0 { x / n } else { 0.0 };
    sums.into_iter()
        .map(|(n, x)| (x + COLLECTION_PRIOR * all) / (n + COLLECTION_PRIOR))
        .collect()
}

/// Fetches and misses of one reading of a hold-out.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Reading {
    /// URLs the schedule would have fetched at the held-out capture's time.
    pub fetched: u64,
    /// Held-out text changes the schedule would not have fetched.
    pub missed: u64,
    /// Share of fetches saved (`1 - fetched / urls`).
    pub fetches_saved: f64,
    /// Share of text changes missed (`missed / text_changed`).
    pub changes_missed: f64,
}

/// What holding out the last capture of every URL says of a schedule.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Holdout {
    /// URLs with at least three captures (two to plan from, one held out).
    pub urls: u64,
    /// Held-out captures whose text changed.
    pub text_changed: u64,
    /// Every URL fetched at the capture before the held-out one.
    pub due_now: Reading,
    /// A steady-state scheduler: visits of a URL spread over its interval.
    pub spread: Reading,
}

/// The phase of a URL in `[0, 1)`: where its visits fall in its interval (seeded XXH3).
fn phase(url: &str) -> f64 {
    let h = xxhash_rust::xxh3::xxh3_64_with_seed(url.as_bytes(), 0x5c4e_d01e);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// [`Holdout`] over URLs' captures: each URL's last capture is held out; the group shares are
/// read from the others.
pub fn holdout(series: &[Series<'_>], cfg: &ScheduleConfig) -> Holdout {
    let shares = group_shares(
        series
            .iter()
            .map(|s| (s.group, &s.captures[..s.captures.len().saturating_sub(1)])),
    );
    // Each series' (due now, spread, changed) at its held-out capture, its own plan's.
    let decide = |s: &Series| -> Option<(bool, bool, bool)> {
        let caps = s.captures;
        if caps.len() < 3 {
            return None;
        }
        let (history, held) = caps.split_at(caps.len() - 1);
        let p = plan(history, shares[s.group as usize], cfg);
        let gap = (held[0].0 - history[history.len() - 1].0) as f64 / 86_400.0;
        // Due when the plan's interval has passed (a small slack for crawl times of day).
        let due_now = gap + 0.5 >= p.next_in_days;
        let spread = due_now || phase(s.url) < gap / p.next_in_days;
        Some((due_now, spread, held[0].1.is_some_and(Change::text_changed)))
    };
    let own: Vec<Option<(bool, bool, bool)>> = series.iter().map(decide).collect();
    let mut h = Holdout::default();
    for (i, s) in series.iter().enumerate() {
        let Some((mut due_now, mut spread, changed)) = own[i] else {
            continue;
        };
        // A stable cluster's copy is fetched when its representative was, and had changed.
        if let Some(Some((rd, rs, rc))) = s.follows.map(|r| own[r]) {
            (due_now, spread) = (rd && rc, rs && rc);
        }
        h.urls += 1;
        h.text_changed += u64::from(changed);
        for (r, fetch) in [(&mut h.due_now, due_now), (&mut h.spread, spread)] {
            r.fetched += u64::from(fetch);
            r.missed += u64::from(changed && !fetch);
        }
    }
    for r in [&mut h.due_now, &mut h.spread] {
        if h.urls > 0 {
            r.fetches_saved = 1.0 - r.fetched as f64 / h.urls as f64;
        }
        if h.text_changed > 0 {
            r.changes_missed = r.missed as f64 / h.text_changed as f64;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn weekly(changes: &[Option<Change>]) -> Vec<(i64, Option<Change>)> {
        changes
            .iter()
            .enumerate()
            .map(|(i, c)| (i as i64 * 7 * DAY, *c))
            .collect()
    }

    #[test]
    fn dates_parse_as_unix_seconds() {
        assert_eq!(parse_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_date("2026-01-08T10:00:00Z"), Some(1_767_866_400));
        assert_eq!(parse_date("2000-03-01"), Some(951_868_800));
        assert_eq!(parse_date("2024-02-29T12:00:00.5Z"), Some(1_709_208_000));
        assert_eq!(parse_date("yesterday"), None);
        for t in [0, 951_868_800, 1_709_208_000, 1_767_866_400, 4_102_444_799] {
            assert_eq!(parse_date(&format_date(t)), Some(t));
        }
        assert_eq!(format_date(1_767_866_400), "2026-01-08T10:00:00Z");
        assert_eq!(parse_date("2026-13-01"), None);
    }

    #[test]
    fn rates_follow_cho_and_garcia_molina() {
        use Change::*;
        let cfg = ScheduleConfig {
            prior_intervals: 0.0,
            ..Default::default()
        };
        // Never changed in text (dates and markup only): the longest interval.
        let p = plan(
            &weekly(&[None, Some(DatesOnly), Some(MarkupOnly), Some(Unchanged)]),
            0.0,
            &cfg,
        );
        assert_eq!((p.intervals, p.text_changes, p.rate_per_day), (3, 0, 0.0));
        assert_eq!(p.next_in_days, 28.0);
        // Changed every week: -ln(0.5 / 3.5) / 7 per day, due at the shortest interval.
        let p = plan(
            &weekly(&[None, Some(FewWords), Some(LargeEdit), Some(ContentReplaced)]),
            0.0,
            &cfg,
        );
        assert!((p.rate_per_day - (-(0.5f64 / 3.5).ln() / 7.0)).abs() < 1e-12);
        // -ln(0.9) / rate is 0.4 days: the shortest interval.
        assert_eq!(p.next_in_days, 1.0);
        // Changed once in six weeks: due when P(changed) reaches 0.1.
        let p = plan(
            &weekly(&[
                None,
                Some(Unchanged),
                Some(Unchanged),
                Some(FewWords),
                Some(DatesOnly),
                Some(Unchanged),
                Some(Unchanged),
            ]),
            0.0,
            &cfg,
        );
        let rate = -(5.5f64 / 6.5).ln() / 7.0;
        assert!((p.rate_per_day - rate).abs() < 1e-12);
        assert!((p.next_in_days - (-(0.9f64).ln() / rate)).abs() < 1e-9);
        assert_eq!(
            plan(&weekly(&[None, Some(Gone)]), 0.0, &cfg).next_in_days,
            28.0
        );
        assert_eq!(plan(&weekly(&[None]), 0.5, &cfg).next_in_days, 1.0);
    }

    #[test]
    fn a_quiet_page_leans_on_its_group() {
        use Change::*;
        let cfg = ScheduleConfig::default();
        let quiet = weekly(&[None, Some(Unchanged), Some(DatesOnly), Some(Unchanged)]);
        // Its group changed in a quarter of its intervals: two pseudo intervals with half a
        // change join its three quiet ones.
        let p = plan(&quiet, 0.25, &cfg);
        let rate = -(5.0f64 / 5.5).ln() / 7.0;
        assert!((p.rate_per_day - rate).abs() < 1e-12, "{p:?}");
        assert!((p.next_in_days - (-(0.9f64).ln() / rate)).abs() < 1e-9);
        assert!(p.next_in_days > 7.0 && p.next_in_days < 28.0);
        // A group that never changes leaves it at the longest interval.
        assert_eq!(plan(&quiet, 0.0, &cfg).next_in_days, 28.0);
        // Group shares lean on the collection by twenty pseudo intervals.
        let busy = weekly(&[None, Some(FewWords), Some(FewWords), Some(FewWords)]);
        let s = group_shares([(0, &quiet[..]), (1, &busy[..]), (1, &busy[..])]);
        let all = 6.0 / 9.0;
        assert!((s[0] - 20.0 * all / 23.0).abs() < 1e-12);
        assert!((s[1] - (6.0 + 20.0 * all) / 26.0).abs() < 1e-12);
    }

    #[test]
    fn holdout_counts_saved_fetches_and_missed_changes() {
        use Change::*;
        let cfg = ScheduleConfig::default();
        let still = weekly(&[None, Some(Unchanged), Some(DatesOnly), Some(FewWords)]);
        let busy = weekly(&[None, Some(LargeEdit), Some(FewWords), Some(LargeEdit)]);
        let series = |url, captures| Series {
            url,
            group: 0,
            captures,
            follows: None,
        };
        let h = holdout(
            &[series("a", &still[..]), series("b", &busy[..])],
            &ScheduleConfig {
                prior_intervals: 0.0,
                ..cfg
            },
        );
        assert_eq!((h.urls, h.text_changed), (2, 2));
        let r = &h.due_now;
        assert_eq!((r.fetched, r.missed), (1, 1));
        assert_eq!((r.fetches_saved, r.changes_missed), (0.5, 0.5));
        // Spread: a URL due every T days is fetched at one crawl in T / 7 by its phase.
        let quiet = weekly(&[None, Some(Unchanged), Some(Unchanged), Some(FewWords)]);
        let urls: Vec<String> = (0..2000).map(|i| format!("u{i}")).collect();
        let all: Vec<Series> = urls.iter().map(|u| series(u, &quiet[..])).collect();
        let h = holdout(&all, &cfg);
        let share = plan(&quiet[..3], group_shares([(0, &quiet[..3])])[0], &cfg).next_in_days;
        let want = 7.0 / share;
        assert_eq!(h.due_now.fetched, 0);
        let got = h.spread.fetched as f64 / 2000.0;
        assert!((got - want).abs() < 0.04, "{got} {want}");
        assert_eq!(h.spread.missed, 2000 - h.spread.fetched);
    }
}
