#![no_main]
//! `CapturePrint::decode` (the prints signature files and index records carry) on arbitrary
//! bytes: never a panic; a print it accepts encodes to the very same bytes, and comparing it
//! with another accepted print (the second half of the input) never panics.

use libfuzzer_sys::fuzz_target;
use neardup_evolve::change::{classify, CapturePrint};

fuzz_target!(|data: &[u8]| {
    let half = data.len() / 2;
    let prints: Vec<CapturePrint> = [data, &data[..half], &data[half..]]
        .into_iter()
        .filter_map(|b| {
            let p = CapturePrint::decode(b).ok()?;
            let mut again = Vec::new();
            p.encode(&mut again);
            assert_eq!(again, b, "an accepted print encodes to its own bytes");
            Some(p)
        })
        .collect();
    for a in &prints {
        for b in &prints {
            let v = classify(a, b);
            assert!(v.simhash_distance <= 64);
        }
    }
});
