//! How a lookup ranks its candidates: the entries its band keys' lists return counted per
//! page (most keys shared first, then the smallest id) and put in order lazily, and the pages
//! sharing every key found without counting, by intersecting the keys' sorted lists.

use crate::KeySegmentReader;

/// The pages in every band key's list, in increasing order, into `every` (`runs`: each key's
/// lists, one per key segment in turn, `segments` of them, as ranges of `ids`, each in
/// increasing order; `order` and `cursors`: scratch): the candidates sharing every key a
/// lookup asked, which rank first. The shortest key's pages are kept while the next shortest
/// key's lists hold them, and so on, until none is left or every key was asked (a forward
/// search from a cursor per list, [`seek`]); nothing is counted.
pub(super) fn sharing_every_key(
    ids: &[u64],
    runs: &[std::ops::Range<usize>],
    segments: usize,
    (order, cursors): (&mut Vec<(usize, usize)>, &mut Vec<usize>),
    every: &mut Vec<u64>,
) {
    every.clear();
    if segments == 0 || runs.is_empty() {
        return;
    }
    let lists = |k: usize| &runs[k * segments..(k + 1) * segments];
    order.clear();
    order.extend(
        runs.chunks(segments)
            .enumerate()
            .map(|(k, l)| (l.iter().map(|r| r.len()).sum::<usize>(), k)),
    );
    order.sort_unstable();
    every.extend(
        lists(order[0].1)
            .iter()
            .flat_map(|r| ids[r.clone()].iter().copied()),
    );
    every.sort_unstable();
    for &(_, k) in &order[1..] {
        if every.is_empty() {
            return;
        }
        cursors.clear();
        cursors.resize(segments, 0);
        let l = lists(k);
        every.retain(|&id| {
            l.iter()
                .zip(cursors.iter_mut())
                .any(|(r, at)| seek(&ids[r.clone()], at, id))
        });
    }
}

/// Whether `keys` are distinct on the bits each key segment keeps. When two are not, one
/// list is read twice and its pages counted twice, so a page may share more entries than there
/// are keys: only counting ranks the candidates then.
pub(super) fn distinct_as_kept(
    keys: &[u64],
    segments: &[KeySegmentReader],
    kept: &mut Vec<u64>,
) -> bool {
    segments.iter().all(|seg| {
        let shift = 64 - seg.key_bits();
        kept.clear();
        kept.extend(keys.iter().map(|&k| k.checked_shr(shift).unwrap_or(0)));
        kept.sort_unstable();
        kept.windows(2).all(|w| w[0] != w[1])
    })
}

/// Whether `id` is in `list` (increasing) at or after `*at`, which moves to where it is or
/// would be: a search forward by doubling steps, then by halves, so that a run of increasing
/// ids costs about the log of each gap.
fn seek(list: &[u64], at: &mut usize, id: u64) -> bool {
    let rest = &list[(*at).min(list.len())..];
    let mut step = 1;
    while step <= rest.len() && rest[step - 1] < id {
        step *= 2;
    }
    let end = step.min(rest.len());
    let skip = (step / 2) + rest[step / 2..end].partition_point(|&x| x < id);
    *at += skip;
    rest.get(skip) == Some(&id)
}

/// Where a lookup counts its candidates' entries: by page id in an array, for an index of at
/// most [`DIRECT_COUNTS`] page ids, else in a hash table.
#[derive(Debug, Default)]
pub(super) struct Counts {
    direct: Vec<u16>,
    table: Vec<(u64, u32)>,
}

/// Page ids up to which candidates are counted in an array indexed by id (two bytes a page
/// id in each lookup's scratch; a probe of a hash table costs several times an increment).
const DIRECT_COUNTS: u64 = 1 << 22;

/// Puts the `n` candidates of `ranked[from..]` that come first (most band keys shared, then
/// smallest id) in order at its start; the ones after them stay in no order. Where the ordered
/// prefix ends now.
pub(super) fn order_prefix(ranked: &mut [(u64, u32)], from: usize, n: usize) -> usize {
    let rank = |a: &(u64, u32), b: &(u64, u32)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    let rest = &mut ranked[from..];
    let n = n.min(rest.len());
    if n == 0 {
        return from;
    }
    if n < rest.len() {
        rest.select_nth_unstable_by(n - 1, rank);
    }
    rest[..n].sort_unstable_by(rank);
    from + n
}

/// Each distinct id of `ids` with how many times it occurs, into `out` (in no order), so a
/// lookup's tens of thousands of entries are counted without sorting them: in an array by
/// page id when the index has at most [`DIRECT_COUNTS`] (`pages`: its next id), else in a
/// hash table.
pub(super) fn count_entries(
    ids: &[u64],
    pages: u64,
    counts: &mut Counts,
    out: &mut Vec<(u64, u32)>,
) {
    out.clear();
    if pages <= DIRECT_COUNTS && count_direct(ids, pages, &mut counts.direct, out) {
        return;
    }
    count_in_table(ids, &mut counts.table, out);
}

/// [`count_entries`] in `direct`, indexed by page id (`pages` of them; zeros between calls):
/// false, `direct` zeros again and `out` empty, when an id is not below `pages`.
fn count_direct(ids: &[u64], pages: u64, direct: &mut Vec<u16>, out: &mut Vec<(u64, u32)>) -> bool {
    direct.resize(pages as usize, 0);
    let mut fits = true;
    for &id in ids {
        let Some(c) = direct.get_mut(id as usize) else {
            fits = false;
            break;
        };
        if *c == 0 {
            out.push((id, 0));
        }
        // Each list holds a page once, so a count is at most the keys asked (the bands).
        *c = c.saturating_add(1);
    }
    for (id, n) in out.iter_mut() {
        *n = u32::from(std::mem::take(&mut direct[*id as usize]));
    }
    if !fits {
        out.clear();
    }
    fits
}

/// [`count_entries`] in an open-addressing table (`table`, reused) kept at most half full.
/// Near-copies share most band keys, so a lookup's entries name a few times fewer pages: the
/// table starts at a quarter of the entries and doubles when half full, and stays small
/// enough for the cache.
fn count_in_table(ids: &[u64], table: &mut Vec<(u64, u32)>, out: &mut Vec<(u64, u32)>) {
    const EMPTY: u64 = u64::MAX;
    out.clear();
    table.clear();
    table.resize((ids.len() / 2).next_power_of_two().max(256), (EMPTY, 0));
    let mut held = 0;
    for &id in ids {
        if held * 2 >= table.len() {
            // Twice as large, the pages counted so far moved in (`out` lends its buffer).
            out.extend(table.iter().copied().filter(|s| s.0 != EMPTY));
            let size = table.len() * 2;
            table.clear();
            table.resize(size, (EMPTY, 0));
            for &(id, n) in out.iter() {
                *slot(table, id) = (id, n);
            }
            out.clear();
        }
        let s = slot(table, id);
        if s.0 == EMPTY {
            *s = (id, 1);
            held += 1;
        } else {
            s.1 += 1;
        }
    }
    out.extend(table.iter().copied().filter(|s| s.0 != EMPTY));

    /// `id`'s slot in `table` (a power of two, never full): where it is, or the empty one
    /// where it goes.
    fn slot(table: &mut [(u64, u32)], id: u64) -> &mut (u64, u32) {
        let mask = table.len() - 1;
        // Fibonacci hashing: page ids are dense, their high product bits spread.
        let mut at = (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        while table[at].0 != id && table[at].0 != EMPTY {
            at = (at + 1) & mask;
        }
        &mut table[at]
    }
}

#[cfg(test)]
mod tests {
    use super::{count_entries, order_prefix, seek, sharing_every_key, Counts};
    use proptest::prelude::*;

    proptest! {
        /// The pages in every key's lists are the candidates counting ranks first: those
        /// counted once per key, in id order.
        #[test]
        fn the_pages_sharing_every_key_are_the_first_ranked(
            lists in proptest::collection::vec(
                proptest::collection::btree_set(0u64..60, 0..40), 1..24),
            segments in 1usize..4,
            shared in proptest::collection::btree_set(0u64..60, 0..6),
        ) {
            // Each key's pages (with `shared`, in some keys' lists or all) split over the
            // segments (a page in one of them), each list in increasing order, as a lookup
            // gathers them.
            let keys = lists.len().div_ceil(segments);
            let (mut ids, mut runs) = (Vec::new(), Vec::new());
            for k in 0..keys {
                let pages: Vec<u64> = lists[k * segments..]
                    .iter()
                    .take(segments)
                    .flatten()
                    .chain(shared.iter().filter(|&&p| p % 7 != 3 || k % 5 != 1))
                    .copied()
                    .collect::<std::collections::BTreeSet<u64>>()
                    .into_iter()
                    .collect();
                for s in 0..segments {
                    let start = ids.len();
                    ids.extend(pages.iter().filter(|&&p| p % segments as u64 == s as u64));
                    runs.push(start..ids.len());
                }
            }
            let (mut order, mut cursors, mut every) = (Vec::new(), Vec::new(), vec![7]);
            sharing_every_key(&ids, &runs, segments, (&mut order, &mut cursors), &mut every);
            let (mut counts, mut ranked) = (Counts::default(), Vec::new());
            count_entries(&ids, 60, &mut counts, &mut ranked);
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let first: Vec<u64> = ranked
                .iter()
                .take_while(|&&(_, n)| n as usize == keys)
                .map(|&(id, _)| id)
                .collect();
            prop_assert_eq!(&every, &first);
        }

        /// A forward search finds what a binary search of the rest finds, from any start.
        #[test]
        fn seek_finds_what_a_binary_search_finds(
            list in proptest::collection::btree_set(0u64..1000, 0..200),
            asked in proptest::collection::btree_set(0u64..1000, 0..50),
        ) {
            let list: Vec<u64> = list.into_iter().collect();
            let mut at = 0;
            for id in asked {
                let want = list.binary_search(&id).is_ok();
                prop_assert_eq!(seek(&list, &mut at, id), want);
                prop_assert_eq!(at, list.partition_point(|&x| x < id));
            }
        }

        /// Candidates counted in the table and put in order a chunk at a time come out as a
        /// count and a full sort would give them.
        #[test]
        fn candidates_counted_and_ordered_lazily_equal_brute_force(
            ids in proptest::collection::vec(0u64..300, 0..2000),
            first in 1usize..40,
        ) {
            let (mut counts, mut ranked) = (Counts::default(), Vec::new());
            // Counted in the array (ids below 300), past it (some ids not below `pages`: the
            // table after all), and in the table (an index of more ids than the array holds).
            let pages = [300, 200, super::DIRECT_COUNTS + 1][ids.len() % 3];
            count_entries(&ids, pages, &mut counts, &mut ranked);
            prop_assert!(counts.direct.iter().all(|&c| c == 0));
            let mut want: Vec<(u64, u32)> = Vec::new();
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            for id in sorted {
                match want.last_mut() {
                    Some((last, n)) if *last == id => *n += 1,
                    _ => want.push((id, 1)),
                }
            }
            want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let (mut at, mut chunk) = (0, first);
            while at < ranked.len() {
                let next = order_prefix(&mut ranked, at, chunk);
                prop_assert!(next > at);
                prop_assert_eq!(&ranked[..next], &want[..next]);
                at = next;
                chunk *= 2;
            }
            prop_assert_eq!(ranked, want);
        }
    }
}
