use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn shipped_config_parses_and_matches_defaults() {
    let text = include_str!("../../config/sitefeed.toml");
    let c = Config::from_toml(text, Path::new("config/sitefeed.toml"), &no_env)
        .expect("shipped config is valid");
    let d = Config::default();
    assert_eq!(c.server.listen, d.server.listen);
    assert_eq!(c.fetch.timeout, d.fetch.timeout);
    let (cd, dd) = (&c.deep, &d.deep);
    assert_eq!(
        (
            cd.max_pages_per_check,
            cd.max_pages,
            cd.hub_links,
            cd.list_entries
        ),
        (
            dd.max_pages_per_check,
            dd.max_pages,
            dd.hub_links,
            dd.list_entries
        )
    );
    assert_eq!(
        (cd.max_url_len, cd.max_path_segments, cd.calendar_pages),
        (dd.max_url_len, dd.max_path_segments, dd.calendar_pages)
    );
    assert!((cd.template_share - dd.template_share).abs() < 1e-9);
    assert!((cd.relevance_threshold - dd.relevance_threshold).abs() < 1e-9);
    assert!((cd.tunnel_cutoff - dd.tunnel_cutoff).abs() < 1e-9);
    assert_eq!(c.fetch.max_body_bytes, d.fetch.max_body_bytes);
    assert_eq!(c.schedule.min_interval, Duration::from_secs(300));
    assert_eq!(c.schedule.max_interval, Duration::from_secs(86_400));
    assert_eq!(c.feed.max_items, 100);
    assert_eq!(c.schedule.strategy, d.schedule.strategy);
    assert!((c.schedule.change_ratio - d.schedule.change_ratio).abs() < 1e-12);
    assert!((c.schedule.periodic_min_days - d.schedule.periodic_min_days).abs() < 1e-12);
    assert_eq!(c.schedule.periodic_degree, d.schedule.periodic_degree);
    assert_eq!(c.fetch.user_agent, d.fetch.user_agent);
    assert_eq!(c.fetch.stall_timeout, d.fetch.stall_timeout);
    assert_eq!(c.fetch.retries, d.fetch.retries);
    let (cb, db) = (&c.browser, &d.browser);
    assert_eq!(
        (&cb.path, &cb.ws_url, cb.tabs, cb.page_timeout, cb.idle),
        (&db.path, &db.ws_url, db.tabs, db.page_timeout, db.idle)
    );
    assert_eq!(
        (
            cb.memory_bytes,
            cb.max_renders,
            cb.max_requests,
            cb.max_total_bytes
        ),
        (
            db.memory_bytes,
            db.max_renders,
            db.max_requests,
            db.max_total_bytes
        )
    );
    assert_eq!(cb.block, db.block);
    assert_eq!(c.items, d.items);
}

#[test]
fn browser_keys() {
    let c = Config::from_toml(
        "[browser]\nws_url = \"ws://127.0.0.1:9222/devtools/browser/x\"\ntabs = 4\nblock = [\"image\", \"stylesheet\"]\n\n[[watch]]\nurl = \"http://a/\"\nrender = \"auto\"\n",
        Path::new("c.toml"),
        &no_env,
    )
    .expect("valid");
    assert_eq!(
        c.browser.ws_url.as_deref(),
        Some("ws://127.0.0.1:9222/devtools/browser/x")
    );
    assert_eq!(c.browser.tabs, 4);
    assert_eq!(c.browser.block, ["image", "stylesheet"]);
    assert_eq!(
        crate::app::NewWatch::from(c.watches[0].clone()).render,
        Some(crate::model::Render::Auto)
    );
    let d = Config::default().browser;
    assert_eq!(d.path, std::path::PathBuf::from("chromium"));
    assert_eq!(d.block, ["image", "font", "media"]);
}

#[test]
fn user_agent_names_the_contact() {
    let c = Config::from_toml(
        "[fetch]\ncontact = \"mailto:ops@example.org\"\n",
        Path::new("c.toml"),
        &no_env,
    )
    .expect("valid");
    assert!(
        c.fetch.user_agent.starts_with("sitefeed/")
            && c.fetch.user_agent.ends_with("(+mailto:ops@example.org)"),
        "{}",
        c.fetch.user_agent
    );
}

#[test]
fn env_overrides_file() {
    let env = |k: &str| match k {
        "SITEFEED_LISTEN" => Some("127.0.0.1:9999".to_owned()),
        "SITEFEED_DATA" => Some("/tmp/x".to_owned()),
        _ => None,
    };
    let c = Config::from_toml(
        "[server]\nlisten = \"0.0.0.0:1\"\n[storage]\npath = \"d\"\n",
        Path::new("f.toml"),
        &env,
    )
    .expect("valid");
    assert_eq!(c.server.listen.port(), 9999);
    assert_eq!(c.storage.path, PathBuf::from("/tmp/x"));
}

#[test]
fn invalid_type_names_file_line_and_key() {
    let err = Config::from_toml(
        "[fetch]\ntimeout_secs = \"soon\"\n",
        Path::new("my.toml"),
        &no_env,
    )
    .expect_err("invalid");
    let s = err.to_string();
    assert!(s.starts_with("my.toml: line 2"), "{s}");
    assert!(s.contains("timeout_secs"), "{s}");
    assert!(!s.contains('\n'), "one line: {s}");
}

#[test]
fn unknown_key_is_rejected() {
    let err = Config::from_toml("[fetch]\ntimeout = 3\n", Path::new("c.toml"), &no_env)
        .expect_err("unknown key");
    assert!(err.to_string().contains("unknown field `timeout`"), "{err}");
}

#[test]
fn semantic_errors_name_the_key() {
    for (text, key) in [
        (
            "[schedule]\nmin_interval = \"2d\"\n",
            "schedule.min_interval",
        ),
        (
            "[schedule]\nmax_interval = \"soon\"\n",
            "schedule.max_interval",
        ),
        ("[schedule]\nstrategy = \"random\"\n", "schedule.strategy"),
        ("[schedule]\nchange_ratio = 0\n", "schedule.change_ratio"),
        ("[schedule]\nchange_ratio = 1.5\n", "schedule.change_ratio"),
        (
            "[schedule]\nperiodic_min_days = 0.1\n",
            "schedule.periodic_min_days",
        ),
        (
            "[schedule]\nperiodic_degree = 0\n",
            "schedule.periodic_degree",
        ),
        ("[server]\nlisten = \"localhost\"\n", "server.listen"),
        ("[fetch]\ntimeout_secs = 0\n", "fetch.timeout_secs"),
        (
            "[fetch]\nstall_timeout_secs = 0\n",
            "fetch.stall_timeout_secs",
        ),
        ("[fetch]\nretries = 99\n", "fetch.retries"),
        (
            "[deep]\nmax_pages_per_check = 0\n",
            "deep.max_pages_per_check",
        ),
        ("[deep]\ntemplate_share = 2\n", "deep.template_share"),
        (
            "[deep]\nrelevance_threshold = -0.5\n",
            "deep.relevance_threshold",
        ),
        ("[deep]\nhub_links = 3\n", "deep.hub_links"),
        ("[fetch]\ncontact = \"a\\nb\"\n", "fetch.contact"),
        (
            "[fetch]\nper_host_concurrency = 0\n",
            "fetch.per_host_concurrency",
        ),
        (
            "[[watch]]\nurl = \"http://a/\"\ndepth = 7\n",
            "watch[0].depth",
        ),
        (
            "[[watch]]\nurl = \"http://a/\"\nrender = \"js\"\n",
            "watch[0].render",
        ),
        (
            "[items]\ntracking_params = [\"a=b\"]\n",
            "items.tracking_params",
        ),
        (
            "[items]\nextra_tracking_params = [\"*\"]\n",
            "items.extra_tracking_params",
        ),
        (
            "[items]\nextra_tracking_params = [\"ut*m\"]\n",
            "items.extra_tracking_params",
        ),
        (
            "[items]\nfull_text_per_check = 0\n",
            "items.full_text_per_check",
        ),
        ("[items]\nfull_text_tries = 300\n", "items.full_text_tries"),
        (
            "[items]\nfull_text_queue = 1000000\n",
            "items.full_text_queue",
        ),
        ("[browser]\ntabs = 0\n", "browser.tabs"),
        ("[browser]\nws_url = \"http://x:9222/\"\n", "browser.ws_url"),
        ("[browser]\nblock = [\"pictures\"]\n", "browser.block"),
        ("[browser]\nblock = [\"document\"]\n", "browser.block"),
        (
            "[browser]\npage_timeout_secs = 0\n",
            "browser.page_timeout_secs",
        ),
    ] {
        let err = Config::from_toml(text, Path::new("c.toml"), &no_env).expect_err(text);
        assert!(err.to_string().contains(key), "{err} should name {key}");
    }
}

#[test]
fn periodic_is_a_strategy_with_its_keys() {
    let c = Config::from_toml(
        "[schedule]\nstrategy = \"periodic\"\nchange_ratio = 0.4\nperiodic_min_days = 5\nperiodic_degree = 6\n",
        Path::new("c.toml"),
        &no_env,
    )
    .expect("valid");
    assert_eq!(c.schedule.strategy, Strategy::Periodic);
    assert!((c.schedule.change_ratio - 0.4).abs() < 1e-12);
    assert!((c.schedule.periodic_min_days - 5.0).abs() < 1e-12);
    assert_eq!(c.schedule.periodic_degree, 6);
    let d = Config::default().schedule;
    assert!((d.change_ratio - 0.5).abs() < 1e-12);
}

#[test]
fn durations() {
    assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("5m"), Some(Duration::from_secs(300)));
    assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
    assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
    assert_eq!(parse_duration("5x"), None);
    assert_eq!(parse_duration("m"), None);
    assert_eq!(parse_duration("5m3"), None);
}

#[test]
fn every_setting_has_an_environment_override() {
    let env = |k: &str| match k {
        "SITEFEED_BASE_URL" => Some("https://feeds.example.org/".to_owned()),
        "SITEFEED_FETCH_TIMEOUT_SECS" => Some("7".to_owned()),
        "SITEFEED_FETCH_RESPECT_ROBOTS" => Some("false".to_owned()),
        "SITEFEED_SERVER_ADMIN_TOKEN" => Some("12345".to_owned()),
        "SITEFEED_SERVER_TRUSTED_PROXIES" => Some("10.0.0.0/8, 127.0.0.1".to_owned()),
        "SITEFEED_DEEP_TEMPLATE_SHARE" => Some("0.9".to_owned()),
        "SITEFEED_FEED_ERROR_ITEM_AFTER" => Some("0".to_owned()),
        "SITEFEED_ITEMS_EXTRA_TRACKING_PARAMS" => Some("ref, src_*".to_owned()),
        "SITEFEED_ITEMS_FULL_TEXT_TRIES" => Some("5".to_owned()),
        _ => None,
    };
    let c = Config::from_toml(
        "[server]\nbase_url = \"http://file.example\"\n[fetch]\ntimeout_secs = 3\n",
        Path::new("f.toml"),
        &env,
    )
    .expect("valid");
    assert_eq!(
        c.server.base_url.as_deref(),
        Some("https://feeds.example.org")
    );
    assert_eq!(c.fetch.timeout.as_secs(), 7);
    assert!(!c.fetch.respect_robots);
    assert_eq!(c.server.admin_token, "12345", "a text key stays text");
    assert_eq!(c.server.trusted_proxies.len(), 2);
    assert!((c.deep.template_share - 0.9).abs() < 1e-9);
    assert_eq!(c.feed.error_item_after, None);
    assert_eq!(c.items.extra_tracking_params, ["ref", "src_*"]);
    assert_eq!(c.items.tracking_params, None, "the built-in list stays");
    assert_eq!(c.items.full_text.tries, 5);
    // The long name wins over the short one.
    let both = |k: &str| match k {
        "SITEFEED_BASE_URL" => Some("https://short.example".to_owned()),
        "SITEFEED_SERVER_BASE_URL" => Some("https://long.example".to_owned()),
        _ => None,
    };
    let c = Config::from_toml("", Path::new("f.toml"), &both).expect("valid");
    assert_eq!(c.server.base_url.as_deref(), Some("https://long.example"));
}

#[test]
fn a_bad_environment_value_names_the_variable() {
    let env = |k: &str| (k == "SITEFEED_FETCH_TIMEOUT_SECS").then(|| "soon".to_owned());
    let err = Config::from_toml("", Path::new("f.toml"), &env).expect_err("invalid");
    assert!(
        err.to_string().contains("SITEFEED_FETCH_TIMEOUT_SECS"),
        "{err}"
    );
    let env = |k: &str| (k == "SITEFEED_SERVER_TRUSTED_PROXIES").then(|| "proxy.lan".to_owned());
    let err = Config::from_toml("", Path::new("f.toml"), &env).expect_err("invalid");
    assert!(err.to_string().contains("trusted_proxies"), "{err}");
}

#[test]
fn base_url_is_unset_by_default() {
    let c = Config::from_toml("", Path::new("f.toml"), &no_env).expect("valid");
    assert_eq!(c.server.base_url, None);
    assert_eq!(
        c.feed.error_item_after,
        Some(std::time::Duration::from_secs(86_400))
    );
}

#[test]
fn timezone_is_an_iana_name() {
    let c = Config::from_toml(
        "[server]\ntimezone = \"Europe/Berlin\"\n",
        Path::new("f.toml"),
        &no_env,
    )
    .expect("valid");
    assert_eq!(c.server.timezone, chrono_tz::Tz::Europe__Berlin);
    let err = Config::from_toml(
        "[server]\ntimezone = \"Mars/Olympus\"\n",
        Path::new("f.toml"),
        &no_env,
    )
    .expect_err("invalid");
    assert!(err.to_string().contains("server.timezone"), "{err}");
}

#[test]
fn storage_backend_is_sled_unless_postgres_with_a_url() {
    let c = Config::from_toml("", Path::new("t.toml"), &no_env).expect("defaults");
    assert_eq!(c.storage.backend, Backend::Sled);
    assert_eq!(c.storage.lease, Duration::from_secs(DEFAULT_LEASE_SECS));
    let text = "[storage]\nbackend = \"postgres\"\nurl = \"postgres://u@db/x\"\nlease_secs = 7\n";
    let c = Config::from_toml(text, Path::new("t.toml"), &no_env).expect("postgres");
    assert_eq!(
        c.storage.backend,
        Backend::Postgres {
            url: "postgres://u@db/x".into()
        }
    );
    assert_eq!(c.storage.lease, Duration::from_secs(7));
    // The URL may come from the environment alone.
    let env = |k: &str| (k == "SITEFEED_DATABASE_URL").then(|| "postgres://e@db/y".to_owned());
    let c = Config::from_toml(
        "[storage]\nbackend = \"postgres\"\n",
        Path::new("t.toml"),
        &env,
    )
    .expect("postgres from env");
    assert_eq!(
        c.storage.backend,
        Backend::Postgres {
            url: "postgres://e@db/y".into()
        }
    );
    for (bad, key) in [
        ("[storage]\nbackend = \"postgres\"\n", "storage.url"),
        ("[storage]\nbackend = \"mysql\"\n", "storage.backend"),
        ("[storage]\nlease_secs = 0\n", "storage.lease_secs"),
        ("[storage]\ncompact_ratio = 1\n", "storage.compact_ratio"),
        ("[storage]\ncompact_ratio = 1001\n", "storage.compact_ratio"),
    ] {
        let e = Config::from_toml(bad, Path::new("t.toml"), &no_env).expect_err(bad);
        assert!(e.to_string().contains(key), "{e}");
    }
}

#[test]
fn compact_ratio_defaults_to_the_stores_and_takes_zero_for_off_and_the_env() {
    let ratio = |text: &str, env: &dyn Fn(&str) -> Option<String>| {
        Config::from_toml(text, Path::new("t.toml"), env)
            .expect("config")
            .storage
            .compact_ratio
    };
    assert_eq!(
        ratio("", &no_env),
        crate::store::CompactPolicy::default().ratio
    );
    assert_eq!(ratio("[storage]\ncompact_ratio = 0\n", &no_env), 0);
    let env = |k: &str| (k == "SITEFEED_STORAGE_COMPACT_RATIO").then(|| "8".to_owned());
    assert_eq!(ratio("[storage]\ncompact_ratio = 3\n", &env), 8);
}
