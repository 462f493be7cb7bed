use std::sync::Arc;

use super::page::KINDS;
use super::*;
use crate::model::crawl::{Digest, Kind, PageState, Pages, Sample, Signature};
use proptest::prelude::*;

fn opt_string() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(".{0,40}")
}

fn opt_digest() -> impl Strategy<Value = Option<Digest>> {
    proptest::option::of(any::<[u8; 16]>().prop_map(Digest))
}

/// Finite floats and the zeros of both signs (NaN is never equal to itself).
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(-0.0), -1e9f64..1e9f64, Just(f64::MAX)]
}

fn page() -> impl Strategy<Value = PageState> {
    (
        (
            any::<u8>(),
            0..5usize,
            opt_string(),
            opt_string(),
            opt_digest(),
        ),
        (opt_digest(), opt_string(), opt_string()),
        (
            proptest::option::of((any::<u64>(), any::<u32>())),
            any::<u32>(),
        ),
        (float(), float(), float(), float()),
        (
            any::<i64>(),
            any::<i64>(),
            any::<u64>(),
            any::<u32>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (level, kind, why, title, raw_fingerprint),
                (link_fingerprint, etag, last_modified),
                (signature, links),
                (relevance, inherited, cash, tunnel),
                (found, fetched, items, failures, nofollow),
            )| PageState {
                level,
                kind: KINDS[kind],
                why,
                title,
                raw_fingerprint,
                link_fingerprint,
                etag,
                last_modified,
                signature: signature.map(|(hash, tokens)| Signature { hash, tokens }),
                links,
                relevance,
                inherited,
                cash,
                tunnel,
                found,
                fetched,
                items,
                failures,
                nofollow,
            },
        )
}

fn candidate() -> impl Strategy<Value = Candidate> {
    (".{0,40}", any::<u8>(), float(), float(), float(), float()).prop_map(
        |(url, level, cash, potential, inherited, tunnel)| Candidate {
            url,
            level,
            cash,
            potential,
            inherited,
            tunnel,
        },
    )
}

fn state() -> impl Strategy<Value = CrawlState> {
    (
        proptest::collection::btree_map(".{0,30}", page(), 0..12),
        proptest::collection::vec(candidate(), 0..12),
        proptest::collection::vec(
            (
                any::<u64>(),
                proptest::collection::vec(any::<(u64, u64)>(), 0..20),
            ),
            0..4,
        ),
        (opt_string(), float(), any::<u32>()),
    )
        .prop_map(
            |(pages, frontier, sample, (root_url, root_relevance, last_fetched))| CrawlState {
                pages: Pages::read(pages),
                frontier,
                sample: Sample {
                    pages: sample
                        .into_iter()
                        .map(|(page, links)| SampledPage { page, links })
                        .collect(),
                },
                root_url,
                root_relevance,
                last_fetched,
            },
        )
}

/// Equal, the signs of zeros included (`==` takes -0.0 for 0.0).
fn same_bits(a: &CrawlState, b: &CrawlState) -> bool {
    let page_bits = |p: &PageState| [p.relevance, p.inherited, p.cash, p.tunnel].map(f64::to_bits);
    let cand_bits = |c: &Candidate| [c.cash, c.potential, c.inherited, c.tunnel].map(f64::to_bits);
    a == b
        && a.root_relevance.to_bits() == b.root_relevance.to_bits()
        && a.pages
            .iter()
            .map(|(_, p)| page_bits(p))
            .eq(b.pages.iter().map(|(_, p)| page_bits(p)))
        && a.frontier
            .iter()
            .map(cand_bits)
            .eq(b.frontier.iter().map(cand_bits))
}

proptest! {
    #[test]
    fn a_state_reads_back_as_it_was(s in state()) {
        let back = decode(&encode(&s));
        prop_assert!(back.as_ref().is_some_and(|b| same_bits(b, &s)), "{back:?}");
    }

    /// A state read and written again, its pages copied as the bytes read, is the same
    /// bytes; with one page changed, it reads back with that change.
    #[test]
    fn a_state_read_and_written_again_is_the_same(s in state(), pick in any::<usize>()) {
        let enc = encode(&s);
        let mut back = decode(&enc).expect("a state");
        prop_assert_eq!(&encode(&back), &enc);
        let Some(url) = s.pages.heads().map(|h| h.url.to_owned()).nth(pick % s.pages.len().max(1)) else {
            return Ok(());
        };
        back.pages.get_mut(&url).expect("known").items ^= 1;
        let again = decode(&encode(&back)).expect("a state");
        prop_assert_eq!(again.pages.get(&url).map(|p| p.items), s.pages.get(&url).map(|p| p.items ^ 1));
        prop_assert!(same_bits(&again, &back));
    }

    /// Checking a page's bytes without building it (as the state's pages are indexed)
    /// accepts exactly the bytes the page's reader accepts, and ends where it ends: a
    /// page the index took would otherwise fail to read when the crawl asks for it.
    #[test]
    fn a_page_checked_is_a_page_read(p in page(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut bytes = Vec::new();
        put_page(&mut bytes, &p);
        let n = bytes.len();
        let mut damaged = bytes.clone();
        damaged[at % n] = byte;
        for b in [&bytes[..], &damaged[..], &bytes[..cut % (n + 1)], &damaged[..cut % (n + 1)]] {
            let (mut r1, mut r2) = (b, b);
            let checked = skip_page(&mut r1);
            let read = get_page(&mut r2, false);
            prop_assert_eq!(checked.is_some(), read.is_some());
            if let (Some((level, kind, signature)), Some(read)) = (checked, read) {
                prop_assert_eq!(
                    (level, kind, signature, r1.len()),
                    (read.level, read.kind, read.signature, r2.len())
                );
            }
        }
    }

    /// Any state cut short, or with a byte more, is rejected.
    #[test]
    fn a_cut_or_longer_state_is_rejected(s in state()) {
        let enc = encode(&s);
        for cut in 0..enc.len() {
            prop_assert!(decode(&enc[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = enc;
        longer.push(0);
        prop_assert!(decode(&longer).is_none());
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        for version in [CRAWL_V5, CRAWL_V6] {
            let mut v = vec![version];
            v.extend_from_slice(&bytes);
            let _ = decode(&v);
        }
    }

    /// A delta of the pages that changed, applied to the state before, gives the new
    /// state: its pages added or replaced, its head (root, frontier) taken whole, its
    /// sample's entries copied from the sample before where they are the same. It is
    /// not a full state, nor a full state a delta.
    #[test]
    fn a_delta_applied_gives_the_new_state(old in state(), new in state(), kept in 0..4usize) {
        let mut new = new;
        // The new sample: the old one's last entries, then entries of its own.
        let from = old.sample.pages.len().saturating_sub(kept);
        for p in old.sample.pages.iter().skip(from).rev() {
            new.sample.pages.push_front(p.clone());
        }
        let sample_from: Vec<Option<usize>> = new
            .sample
            .pages
            .iter()
            .map(|p| old.sample.pages.iter().position(|o| o == p))
            .collect();
        let changed: Vec<&str> = new.pages.heads().map(|h| h.url).collect();
        let delta = encode_delta(&new, &changed, &sample_from);
        prop_assert!(decode(&delta).is_none());
        let full = decode_value(&encode(&new)).expect("a state");
        prop_assert!(full.copies.is_none());
        let none: Vec<Option<usize>> = Vec::new();
        let whole = encode_delta(&new, &changed, &none);
        prop_assert!(sample_from.iter().all(Option::is_none) || delta.len() < whole.len());
        let mut want = new.clone();
        want.pages = old.pages.clone();
        for (url, page) in new.pages.iter() {
            want.pages.insert(url.to_owned(), page.clone());
        }
        let base = encode(&old);
        for bytes in [&delta, &whole] {
            let values: Vec<Value> = vec![Arc::new(base.clone()), Arc::new(bytes.clone())];
            let got = read_state(values).expect("a state and a delta");
            prop_assert!(same_bits(&got, &want), "{got:?}");
        }
    }

    /// A delta that copies an entry the sample before lacks is refused when applied.
    #[test]
    fn a_copy_beyond_the_sample_is_refused(new in state()) {
        prop_assume!(!new.sample.pages.is_empty());
        let delta = encode_delta(&new, &[], &[Some(0)]);
        let d = decode_value(&delta).expect("a delta");
        prop_assert!(apply_delta(&mut CrawlState::default(), d).is_none());
    }

    /// A state written by version 5 (digests as hex) reads as it was.
    #[test]
    fn a_version_5_state_reads_as_it_was(s in state()) {
        let back = decode(&as_v5(&s));
        prop_assert!(back.as_ref().is_some_and(|b| same_bits(b, &s)), "{back:?}");
    }
}

/// `s` as version 5 wrote it: each digest a string of 32 hex digits. Each digest's 16
/// bytes are found in the version 6 form and replaced, pages in order.
fn as_v5(s: &CrawlState) -> Vec<u8> {
    let mut enc = encode(s);
    enc[0] = CRAWL_V5;
    let mut from = 0;
    for (_, p) in s.pages.iter() {
        for d in [p.raw_fingerprint, p.link_fingerprint]
            .into_iter()
            .flatten()
        {
            let at = from
                + enc[from..]
                    .windows(16)
                    .position(|w| w == d.0)
                    .expect("digest written");
            let mut hex = Vec::new();
            put_str(&mut hex, &d.to_string());
            enc.splice(at..at + 16, hex.iter().copied());
            from = at + hex.len();
        }
    }
    enc
}

/// A version 5 page whose digest is not hex reads without that digest (the page is
/// read again at its next visit); the rest of the state reads as it was.
#[test]
fn a_version_5_digest_that_is_not_hex_reads_as_none() {
    let s = site(2);
    let good = as_v5(&s);
    let first = s.pages.iter().next().and_then(|(_, p)| p.raw_fingerprint);
    let hex = first.expect("fingerprint").to_string();
    let at = good
        .windows(32)
        .position(|w| w == hex.as_bytes())
        .expect("hex written");
    let mut bad = good;
    bad[at] = b'z';
    let back = decode(&bad).expect("reads");
    let mut want = s;
    let first = want
        .pages
        .heads()
        .next()
        .map(|h| h.url.to_owned())
        .expect("a page");
    if let Some(p) = want.pages.get_mut(&first) {
        p.raw_fingerprint = None;
    }
    assert_eq!(back, want);
}

/// A site of 400 known pages, as a deep watch keeps it: every page fetched, with its
/// fingerprints, signature and validators.
fn site(pages: usize) -> CrawlState {
    let mut s = CrawlState::default();
    for i in 0..pages {
        s.pages.insert(
            format!("https://news.example/2026/11/story-{i}"),
            PageState {
                level: 2,
                kind: if i % 10 == 0 { Kind::List } else { Kind::Leaf },
                why: None,
                title: Some(format!("Council backs plan number {i} for the river")),
                raw_fingerprint: Some(Digest(((i as u128 + 1) * 7919).to_le_bytes())),
                link_fingerprint: Some(Digest(((i as u128 + 1) * 104_729).to_be_bytes())),
                etag: Some(format!("\"{i:x}-5f3a\"")),
                last_modified: None,
                signature: Some(Signature {
                    hash: (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    tokens: 800,
                }),
                links: 120,
                relevance: 0.0,
                inherited: 0.0,
                cash: 0.0,
                tunnel: 0.0,
                found: 1_795_000_000 + i64::try_from(i).expect("small"),
                fetched: 1_795_600_000,
                items: 3,
                failures: 0,
                nofollow: false,
            },
        );
    }
    s.frontier = (0..150)
        .map(|i| Candidate {
            url: format!("https://news.example/2026/11/story-{}", 1000 + i),
            level: 2,
            cash: 0.0,
            potential: 0.0,
            inherited: 0.0,
            tunnel: 0.0,
        })
        .collect();
    s
}

/// The binary form of a large site is well under half of its JSON, and reads back.
#[test]
fn a_large_site_is_far_smaller_than_its_json() {
    let s = site(400);
    let bin = encode(&s);
    let json = serde_json::to_vec(&s).expect("json");
    assert!(
        bin.len() * 2 < json.len(),
        "{} against {} bytes",
        bin.len(),
        json.len()
    );
    assert_eq!(decode(&bin), Some(s));
}

/// A kind byte out of range, an unknown page field or frontier float, and another
/// version are refused.
#[test]
fn unknown_codes_are_refused() {
    let mut s = site(1);
    s.frontier.truncate(1);
    let enc = encode(&s);
    assert_eq!(decode(&enc).as_ref(), Some(&s));
    // Version, root (absent), relevance, last fetched, one page, its URL: then the level
    // and the kind.
    let url = "https://news.example/2026/11/story-0";
    let kind_at = 1 + 1 + 8 + 1 + 1 + 1 + url.len() + 1;
    assert_eq!(enc[kind_at], 0, "a list page");
    let mut bad = enc.clone();
    bad[kind_at] = 5;
    assert_eq!(decode(&bad), None);
    // The field set follows the kind: a bit beyond the known ones.
    let mut bad = enc.clone();
    bad[kind_at + 1] |= 0x80;
    bad.insert(kind_at + 2, 0x20);
    assert_eq!(decode(&bad), None);
    let mut bad = enc;
    bad[0] = 1;
    assert_eq!(decode(&bad), None);
}

/// A store written before the binary form (schema 3) holds JSON: it opens as the newest schema,
/// its states read as they were, and the next write of a state is binary. A damaged
/// binary state is an error, not an empty state.
#[test]
fn the_store_reads_json_states_and_writes_binary_ones() {
    use crate::model::Watch;
    use crate::store::{keys, StoreError, SCHEMA_VERSION};
    let dir = tempfile::tempdir().expect("tempdir");
    let id = Watch::of_url("http://a.example/", 60).id;
    let key = keys::watch_key(keys::CRAWL, &id);
    let s = site(20);
    {
        let db = sled::Config::new().path(dir.path()).open().expect("sled");
        db.insert(keys::SCHEMA, &3u32.to_be_bytes()).expect("v");
        db.insert(&key, crate::store::encode(&s)).expect("insert");
        db.flush().expect("flush");
    }
    let store = crate::store::suite::open_when_free(dir.path());
    let db = store.db().expect("db");
    assert_eq!(
        db.get(keys::SCHEMA).expect("get").as_deref(),
        Some(SCHEMA_VERSION.to_be_bytes().as_slice())
    );
    assert_eq!(store.crawl(&id).expect("read"), s);
    // Another watch's state is not this one's.
    assert_eq!(
        store
            .crawl(&Watch::of_url("http://b.example/", 60).id)
            .expect("read"),
        CrawlState::default()
    );
    let bin = encode(&s);
    db.insert(&key, bin.clone()).expect("insert");
    assert_eq!(store.crawl(&id).expect("read"), s);
    db.insert(&key, &bin[..bin.len() - 1]).expect("insert");
    assert!(matches!(store.crawl(&id), Err(StoreError::Corrupt { .. })));
    // A deep check's commit writes the state in binary.
    let w = Watch::of_url("http://c.example/", 60);
    let st = crate::state::WatchState::new(
        10,
        crate::schedule::Adaptive {
            a: 60.0,
            b: 60.0,
            c: 0.0,
        },
    );
    assert!(store.insert_watch(&w, &st).expect("insert"));
    let record = crate::store::CheckRecord {
        crawl: Some(crate::store::CrawlRecord {
            state: s.clone(),
            pages: Vec::new(),
            read: None,
        }),
        ..Default::default()
    };
    store
        .commit_check(&w.id, &st, &st, &record)
        .expect("commit");
    let stored = db
        .get(keys::watch_key(keys::CRAWL, &w.id))
        .expect("get")
        .expect("written");
    assert_eq!(stored.first(), Some(&CRAWL_V6));
    // A state version 5 wrote (digests in hex) reads as it was.
    db.insert(keys::watch_key(keys::CRAWL, &w.id), as_v5(&s))
        .expect("insert");
    assert_eq!(store.crawl(&w.id).expect("read"), s);
    assert_eq!(store.crawl(&w.id).expect("read"), s);
}

/// A count far beyond the bytes that follow (a corrupt value) is refused at once, for
/// each of the three arrays, without reserving room for it.
#[test]
fn a_count_beyond_the_bytes_is_refused() {
    let huge = |out: &mut Vec<u8>| put_var(out, 1 << 60);
    // Version, no root URL, relevance 0, nothing fetched last.
    let head = || {
        let mut v = vec![CRAWL_V6, 0];
        v.extend_from_slice(&0f64.to_le_bytes());
        v.push(0);
        v
    };
    for array in 0..3 {
        let mut v = head();
        v.resize(v.len() + array, 0);
        huge(&mut v);
        v.extend_from_slice(&[0; 32]);
        assert_eq!(decode(&v), None, "array {array}");
    }
    // A sampled page claiming more pairs than there are bytes.
    let mut v = head();
    v.extend_from_slice(&[0, 0, 1]);
    v.extend_from_slice(&7u64.to_le_bytes());
    huge(&mut v);
    assert_eq!(decode(&v), None);
    // The empty state, for comparison, reads.
    let mut v = head();
    v.extend_from_slice(&[0, 0, 0]);
    assert_eq!(decode(&v), Some(CrawlState::default()));
}
