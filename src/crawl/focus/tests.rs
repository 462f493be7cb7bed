use std::collections::HashMap;

use super::*;
use proptest::prelude::*;

fn topic(words: &[&str]) -> Topic {
    let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    Topic::new(&words).expect("non-empty topic")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

fn cand(url: &str, level: u8, cash: f64, potential: f64) -> Candidate {
    Candidate {
        url: url.to_owned(),
        level,
        cash,
        potential,
        inherited: 0.0,
        tunnel: 0.0,
    }
}

fn drain(f: &mut Frontier) -> Vec<String> {
    std::iter::from_fn(|| f.pop()).map(|c| c.url).collect()
}

#[test]
fn topic_new_needs_a_non_empty_keyword() {
    assert!(Topic::new(&[]).is_none());
    assert!(Topic::new(&["  ".to_owned(), String::new()]).is_none());
    let t = topic(&[" Aid ", "aid", "Grant"]);
    assert_eq!(t.keywords().collect::<Vec<_>>(), ["aid", "grant"]);
}

#[test]
fn sim_hand_computed() {
    let t = topic(&["ab", "cd"]);
    // share 1/2, density 2/5: 0.75 · (1 − e^(−0.4/0.05))
    let want = 0.75 * (1.0 - (-8.0f64).exp());
    assert!(close(t.sim("ab xx"), want), "{}", t.sim("ab xx"));
    assert!(close(t.sim("abcd"), 1.0 - (-20.0f64).exp()));
    assert!(t.sim("xyz").abs() < f64::EPSILON);
    assert!(t.sim("").abs() < f64::EPSILON);
}

#[test]
fn sim_ignores_case_and_prefers_dense_text() {
    let t = topic(&["Scholarship"]);
    assert!(close(t.sim("SCHOLARSHIP news"), t.sim("scholarship NEWS")));
    assert!(t.sim("Scholarship") > 0.99);
    let long = format!(
        "{} scholarship {}",
        "word ".repeat(200),
        "word ".repeat(200)
    );
    assert!(t.sim(&long) > 0.0);
    assert!(t.sim(&long) < t.sim("Apply for a scholarship"));
}

#[test]
fn sim_on_cjk_without_segmentation() {
    let t = topic(&["奖学金", "助学"]);
    let anchor = t.sim("2025年奖学金申请");
    assert!(anchor > 0.5, "{anchor}");
    let page = format!(
        "{}奖学金{}",
        "学校新闻内容".repeat(100),
        "食堂通知".repeat(100)
    );
    let p = t.sim(&page);
    assert!(p > 0.0 && p < anchor, "{p} vs {anchor}");
    assert!(t.sim("食堂菜单").abs() < f64::EPSILON);
    // both keywords: higher share
    assert!(t.sim("奖学金与助学贷款") > t.sim("奖学金与其他贷款"));
    // Latin keywords inside Japanese text, case-insensitive
    let j = topic(&["AI"]);
    assert!(j.sim("最新のaiニュース") > 0.0);
}

#[test]
fn page_relevance_weights_title_and_content() {
    let t = topic(&["aid"]);
    let p = FocusParams::default();
    let title = t.sim("aid");
    let content = t.sim("aid and other things");
    let want = 0.3 * title + 0.7 * content;
    assert!(close(
        page_relevance(&t, &p, "aid", "aid and other things"),
        want
    ));
    assert!(page_relevance(&t, &p, "home", "nothing").abs() < f64::EPSILON);
}

#[test]
fn shark_search_and_cash_hand_computed() {
    let t = topic(&["aid"]);
    let p = FocusParams::default(); // δ .5, β .8, γ .5
    let parent = Parent {
        relevance: 0.6,
        inherited: 0.1,
        cash: 1.0,
        tunnel: 0.0,
    };
    let links = [
        LinkCue {
            url: "a",
            anchor: "aid",
            context: "",
        },
        LinkCue {
            url: "b",
            anchor: "home",
            context: "nothing here",
        },
        LinkCue {
            url: "c",
            anchor: "more",
            context: "aid",
        },
    ];
    let s = score_links(&t, &p, &parent, &links);
    let a = t.sim("aid"); // ≈ 1
                          // inherited = δ·0.6 = 0.3 for all
    assert!(s.iter().all(|x| close(x.inherited, 0.3)));
    // a: anchor a, context 1 → neighbourhood .8a + .2; potential .15 + .5·that
    let pa = 0.15 + 0.5 * (0.8 * a + 0.2);
    // b: neighbourhood 0 → .15; c: anchor 0, context sim("aid") = a → .2a
    let pb = 0.15;
    let pc = 0.15 + 0.5 * (0.2 * a);
    assert!(close(s[0].potential, pa) && close(pa, 0.65));
    assert!(close(s[1].potential, pb));
    assert!(close(s[2].potential, pc) && close(pc, 0.25));
    let sum = pa + pb + pc;
    assert!(close(s[0].cash, pa / sum));
    assert!(close(s[1].cash, pb / sum));
    assert!(close(s[2].cash, pc / sum));

    // an irrelevant parent hands down δ·its own inherited score
    let cold = Parent {
        relevance: 0.0,
        ..parent
    };
    let s = score_links(&t, &p, &cold, &links);
    assert!(s.iter().all(|x| close(x.inherited, 0.05)));
    assert!(close(s[1].potential, 0.025));
    // so does a page under θ that mentions the topic a little (tunnelling: its links keep
    // the decayed score of the last relevant ancestor, not δ·0.05)...
    let lukewarm = Parent {
        relevance: 0.05,
        inherited: 0.3,
        ..parent
    };
    let s = score_links(&t, &p, &lukewarm, &links);
    assert!(s.iter().all(|x| close(x.inherited, 0.15)));
    assert!(close(s[1].potential, 0.075));
    // ...unless its own relevance is the higher; at θ the page's own relevance counts,
    // even under its inherited score
    for (relevance, inherited, want) in [(0.2, 0.1, 0.1), (0.25, 0.3, 0.125)] {
        let parent = Parent {
            relevance,
            inherited,
            ..parent
        };
        let s = score_links(&t, &p, &parent, &links);
        assert!(s.iter().all(|x| close(x.inherited, want)), "{relevance}");
    }
}

#[test]
fn cash_is_split_equally_when_all_potentials_are_zero() {
    let t = topic(&["aid"]);
    let p = FocusParams::default();
    let parent = Parent {
        relevance: 0.0,
        inherited: 0.0,
        cash: 0.9,
        tunnel: 0.0,
    };
    let links = [
        LinkCue {
            url: "a",
            anchor: "x",
            context: "y",
        },
        LinkCue {
            url: "b",
            anchor: "z",
            context: "w",
        },
        LinkCue {
            url: "c",
            anchor: "",
            context: "",
        },
    ];
    let s = score_links(&t, &p, &parent, &links);
    assert!(s.iter().all(|x| close(x.cash, 0.3) && x.potential == 0.0));
    assert!(score_links(&t, &p, &parent, &[]).is_empty());
    let broke = Parent {
        cash: f64::NAN,
        ..parent
    };
    assert!(score_links(&t, &p, &broke, &links)
        .iter()
        .all(|x| x.cash == 0.0));
}

#[test]
fn tunnelling_cuts_off_after_two_irrelevant_pages() {
    let p = FocusParams::default(); // θ .25, C 7
    let d1 = tunnel(&p, 0.0, 0.0);
    let d2 = tunnel(&p, d1, 0.0);
    let d3 = tunnel(&p, d2, 0.0);
    assert!(close(d1, std::f64::consts::E - 1.0));
    assert!(close(d2, std::f64::consts::E.powi(2) - 1.0));
    assert!(close(d3, std::f64::consts::E.powi(3) - 1.0));
    assert!(may_follow(&p, d1) && may_follow(&p, d2) && !may_follow(&p, d3));
    // a relevant page resets the distance
    assert!(tunnel(&p, d3, 0.25).abs() < f64::EPSILON);
    // less relevant pages go further per step
    assert!(tunnel(&p, 1.0, 0.2) < tunnel(&p, 1.0, 0.1));
    // k irrelevant pages in a row until the cut-off, for a few cut-offs
    for (cutoff, k) in [(0.0, 0), (2.0, 1), (7.0, 2), (20.0, 3)] {
        let p = FocusParams {
            tunnel_cutoff: cutoff,
            ..p
        };
        let mut d = 0.0;
        let mut crossed = 0;
        loop {
            d = tunnel(&p, d, 0.0);
            if !may_follow(&p, d) {
                break;
            }
            crossed += 1;
        }
        assert_eq!(crossed, k, "cut-off {cutoff}");
    }
}

#[test]
fn frontier_merges_a_repushed_url() {
    let mut f = Frontier::new(Order::Focused);
    f.push(Candidate {
        tunnel: 3.0,
        inherited: 0.2,
        ..cand("u", 2, 0.25, 0.4)
    });
    f.push(Candidate {
        tunnel: 1.0,
        inherited: 0.1,
        ..cand("u", 1, 0.5, 0.3)
    });
    assert_eq!(f.len(), 1);
    let c = f.pop().expect("one waiting");
    assert!(close(c.cash, 0.75));
    assert!(close(c.potential, 0.4) && close(c.inherited, 0.2) && close(c.tunnel, 1.0));
    assert_eq!(c.level, 1);
    assert!(f.pop().is_none() && f.is_empty());
    // done: a re-push is ignored, until forgotten
    assert!(f.is_done("u"));
    f.push(cand("u", 1, 9.0, 0.0));
    assert!(f.is_empty());
    f.forget("u");
    f.push(cand("u", 1, 9.0, 0.0));
    assert_eq!(f.pop().map(|c| c.cash), Some(9.0));
}

#[test]
fn merged_cash_reorders_the_focused_frontier() {
    let mut f = Frontier::new(Order::Focused);
    f.push(cand("a", 1, 0.5, 0.5));
    f.push(cand("b", 1, 0.3, 0.5));
    f.push(cand("b", 1, 0.3, 0.5)); // b gathers 0.6 > 0.5: same potential, more cash
    assert_eq!(drain(&mut f), ["b", "a"]);
}

#[test]
fn focused_priority_hand_computed() {
    // p·(1 + λ·c/(c + κ·m)), λ 0.1, κ 10
    assert!(close(
        focused_priority(0.6, 2.0, 0.2),
        0.6 * (1.0 + 0.1 * 2.0 / 4.0)
    ));
    assert!(close(focused_priority(0.6, 0.0, 0.2), 0.6));
    assert!(close(focused_priority(0.6, 0.0, 0.0), 0.6)); // no cash anywhere
    assert!(close(focused_priority(0.6, 1.0, 0.0), 0.66)); // the only cash: the whole boost
    assert!(close(focused_priority(0.0, 5.0, 0.1), 0.0));
    assert!(close(focused_priority(f64::NAN, 1.0, 1.0), 0.0));
    assert!(close(focused_priority(0.5, f64::NAN, -1.0), 0.5));
    // the boost grows with cash relative to the mean, independently of the cash scale
    assert!(close(
        focused_priority(0.5, 3e-9, 1e-9),
        focused_priority(0.5, 3.0, 1.0)
    ));
    assert!(focused_priority(0.5, 1.0, 0.01) > focused_priority(0.52, 0.0, 0.01));
    assert!(focused_priority(0.5, 1e9, 1e-9) < focused_priority(0.56, 0.0, 1e-9));
}

#[test]
fn breadth_order_is_level_then_arrival() {
    let mut f = Frontier::new(Order::Breadth);
    f.push(cand("l2a", 2, 9.0, 1.0));
    f.push(cand("l1a", 1, 0.0, 0.0));
    f.push(cand("l2b", 2, 0.0, 0.0));
    f.push(cand("l1b", 1, 5.0, 0.0));
    f.push(cand("l0", 0, 0.0, 0.0));
    f.push(cand("l2b", 1, 0.0, 0.0)); // found closer: level 1, keeps its arrival
    assert_eq!(drain(&mut f), ["l0", "l1a", "l2b", "l1b", "l2a"]);
}

#[test]
fn focused_order_is_potential_boosted_by_relative_cash() {
    let mut f = Frontier::new(Order::Focused);
    f.push(cand("tie_poor", 1, 0.1, 0.5)); // 0.5·(1 + .1·0.1/1.1) ≈ 0.5045
    f.push(cand("tie_rich", 1, 2.0, 0.5)); // mean 1.05: 0.5·(1 + .1·2/12.5) = 0.508
    f.push(cand("top", 3, 0.0, 0.8)); // no cash, best potential
    f.push(cand("rich", 1, 50.0, 0.7)); // at most 0.77 whatever its cash
    f.push(cand("zero", 1, 100.0, 0.0)); // potential 0: cash cannot lift it
    f.push(cand("nan", 0, f64::NAN, f64::NAN));
    f.push(cand("tie_arrival", 1, 0.0, 0.0)); // ties with nan: later arrival
    f.push(cand("lower", 1, 0.0, 0.48));
    let waiting: Vec<String> = {
        let mut g = Frontier::new(Order::Focused);
        g.push(cand("x", 0, 0.2, 0.3));
        g.push(cand("y", 0, 0.0, 0.4));
        g.push(cand("z", 0, 0.4, 0.3));
        g.into_waiting().into_iter().map(|c| c.url).collect()
    };
    assert_eq!(waiting, ["y", "z", "x"]);
    assert_eq!(
        drain(&mut f),
        [
            "top",
            "rich",
            "tie_rich",
            "tie_poor",
            "lower",
            "zero",
            "nan",
            "tie_arrival"
        ]
    );
    // cash overtakes a slightly higher potential once it stands out from the mean (here
    // the only cash among 32 candidates: 0.5·(1 + .1·1/(1 + 10/32)) ≈ 0.538 > 0.52)
    let mut f = Frontier::new(Order::Focused);
    for i in 0..30 {
        f.push(cand(&format!("filler{i}"), 1, 0.0, 0.1));
    }
    f.push(cand("plain", 1, 0.0, 0.52));
    f.push(cand("boosted", 1, 1.0, 0.5));
    assert_eq!(&drain(&mut f)[..2], ["boosted", "plain"]);
}

#[test]
fn many_repushes_keep_the_heap_small_and_the_order_right() {
    let mut f = Frontier::new(Order::Focused);
    for round in 0..50 {
        for i in 0..20 {
            f.push(cand(&format!("u{i}"), 1, f64::from(i) * 0.001, 0.0));
        }
        assert!(f.heap_len() <= 4 * f.len() + 64 + 1, "round {round}");
    }
    let got = drain(&mut f);
    let want: Vec<String> = (0..20).rev().map(|i| format!("u{i}")).collect();
    assert_eq!(got, want);
}

#[test]
fn into_waiting_is_best_first() {
    let mut f = Frontier::new(Order::Breadth);
    f.push(cand("c", 3, 0.0, 0.0));
    f.push(cand("a", 1, 0.0, 0.0));
    f.push(cand("b", 2, 0.0, 0.0));
    f.push(cand("a2", 1, 0.0, 0.0));
    let urls: Vec<String> = f.into_waiting().into_iter().map(|c| c.url).collect();
    assert_eq!(urls, ["a", "a2", "b", "c"]);
}

proptest! {
    #[test]
    fn score_links_conserves_cash(
        cash in 0.0f64..1000.0,
        relevance in 0.0f64..1.0,
        inherited in 0.0f64..1.0,
        cues in proptest::collection::vec(("[a-d ]{0,12}", "[a-dX ]{0,30}"), 1..20),
    ) {
        let t = topic(&["ab", "Cd"]);
        let p = FocusParams::default();
        let parent = Parent { relevance, inherited, cash, tunnel: 0.0 };
        let links: Vec<LinkCue<'_>> = cues
            .iter()
            .map(|(a, c)| LinkCue { url: "u", anchor: a, context: c })
            .collect();
        let s = score_links(&t, &p, &parent, &links);
        prop_assert_eq!(s.len(), links.len());
        let total: f64 = s.iter().map(|x| x.cash).sum();
        prop_assert!((total - cash).abs() <= 1e-9 * cash.max(1.0), "{} vs {}", total, cash);
        for x in &s {
            prop_assert!((0.0..=1.0).contains(&x.potential));
            prop_assert!(x.cash >= 0.0);
        }
    }

    #[test]
    fn sim_is_in_unit_interval(text in "\\PC{0,200}", kw in proptest::collection::vec("\\PC{0,6}", 1..4)) {
        if let Some(t) = Topic::new(&kw) {
            let s = t.sim(&text);
            prop_assert!((0.0..=1.0).contains(&s), "{}", s);
        }
    }

    #[test]
    fn focused_pops_follow_potential_within_the_cash_boost(
        pushes in proptest::collection::vec((0.0f64..1.0, 0.0f64..10.0), 1..80),
    ) {
        let mut f = Frontier::new(Order::Focused);
        let mut best: HashMap<String, f64> = HashMap::new();
        for (i, (potential, cash)) in pushes.iter().enumerate() {
            let url = format!("u{}", i % 23);
            let b = best.entry(url.clone()).or_insert(0.0);
            *b = b.max(*potential);
            f.push(cand(&url, 1, *cash, *potential));
        }
        while let Some(c) = f.pop() {
            best.remove(&c.url);
            let rest = best.values().copied().fold(0.0, f64::max);
            prop_assert!(c.potential * (1.0 + CASH_WEIGHT) >= rest, "{} vs {}", c.potential, rest);
        }
        prop_assert!(best.is_empty());
    }

    #[test]
    fn focused_pops_never_increase_in_cash_at_zero_potential(cash in proptest::collection::vec(0.0f64..10.0, 1..60)) {
        let mut f = Frontier::new(Order::Focused);
        for (i, c) in cash.iter().enumerate() {
            f.push(cand(&format!("u{}", i % 17), 1, *c, 0.0));
        }
        let mut last = f64::INFINITY;
        while let Some(c) = f.pop() {
            prop_assert!(c.cash <= last);
            last = c.cash;
        }
    }
}
