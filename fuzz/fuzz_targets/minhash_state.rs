#![no_main]
//! `MinHash::from_state` (the Python package's pickled signatures) on arbitrary bytes, and
//! behind a valid header so the fuzzer reaches the values: never a panic, and a state it
//! accepts writes itself back as the same bytes.

use libfuzzer_sys::fuzz_target;
use neardup_sketch::oph::Oph;
use neardup_sketch::streaming::MinHash;
use std::sync::Arc;

fn check(oph: &Arc<Oph>, bytes: &[u8]) {
    if let Ok(m) = MinHash::from_state(oph.clone(), bytes) {
        let again = MinHash::from_state(oph.clone(), &m.state()).expect("its own state");
        assert_eq!(again.digest(), m.digest());
        let _ = m.digest();
    }
}

fuzz_target!(|data: &[u8]| {
    let oph = Arc::new(Oph::new(16, 1));
    check(&oph, data);
    if let Some((&kind, values)) = data.split_first() {
        let n = (values.len() / 8) as u32;
        let mut v = b"NDMH\x01".to_vec();
        v.push(kind % 3);
        v.extend_from_slice(&16u32.to_le_bytes());
        v.extend_from_slice(&n.to_le_bytes());
        v.extend_from_slice(&values[..n as usize * 8]);
        check(&oph, &v);
    }
});
