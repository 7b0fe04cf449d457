//! Sites over near-duplicate clusters: mirrored hosts and subtrees ([`mirrors`], paper 004
//! section 4) and website replicas without labels ([`replicas`], paper 001).

pub mod mirrors;
pub mod replicas;
