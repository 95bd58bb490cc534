use std::collections::HashMap;
use std::time::Duration;

use prometheus_parse::{Scrape, Value};

use super::Running;
use super::labels::{Endpoint, ErrorKind, Guard, LabelValue, SignInStep};
use super::registry::{DURATION_BUCKETS, Metrics};
use crate::base::tool_name::ToolName;

fn scrape(m: &Metrics) -> Scrape {
    let text = m.render();
    Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("parse the exposition")
}

/// The value of the sample `name` whose labels include `labels`.
fn value(s: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let matching: Vec<_> = s
        .samples
        .iter()
        .filter(|x| x.metric == name)
        .filter(|x| labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .collect();
    assert_eq!(matching.len(), 1, "{name} {labels:?}: {matching:?}");
    match &matching[0].value {
        Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
        other => panic!("{name}: not a number: {other:?}"),
    }
}

fn histogram_count(s: &Scrape, name: &str, part: &str) -> f64 {
    let sample = s
        .samples
        .iter()
        .find(|x| {
            x.metric == name
                && x.labels.get("part") == Some(part)
                && x.labels.get("tool") == Some("get_repository_file")
        })
        .unwrap_or_else(|| panic!("no {name} {part}"));
    match &sample.value {
        Value::Histogram(buckets) => buckets
            .iter()
            .find(|b| b.less_than.is_infinite())
            .map(|b| b.count)
            .expect("+Inf bucket"),
        other => panic!("not a histogram: {other:?}"),
    }
}

#[test]
fn every_series_exists_from_the_start_at_zero() {
    let m = Metrics::new();
    let s = scrape(&m);
    let calls = "gitlab_file_mcp_tool_calls_total";
    for tool in ToolName::ALL {
        let tool = ("tool", tool.as_str());
        assert_eq!(value(&s, calls, &[tool, ("outcome", "ok")]), 0.0);
        for kind in ErrorKind::ALL {
            let labels = [tool, ("outcome", "tool_error"), ("kind", kind.as_str())];
            assert_eq!(value(&s, calls, &labels), 0.0);
        }
    }
    for guard in Guard::ALL {
        let labels = [("guard", guard.as_str())];
        assert_eq!(
            value(&s, "gitlab_file_mcp_http_refused_requests_total", &labels),
            0.0
        );
    }
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_bytes", &[]), 0.0);
    assert_eq!(value(&s, "gitlab_file_mcp_http_open_connections", &[]), 0.0);
    assert_eq!(value(&s, "gitlab_file_mcp_http_open_sessions", &[]), 0.0);
}

#[test]
fn recordings_show_by_value_under_their_labels() {
    let m = Metrics::new();
    let ms = Duration::from_millis;
    m.calls
        .answered(ToolName::GetRepositoryFile, None, ms(30), ms(20));
    m.calls
        .answered(ToolName::GetRepositoryFile, None, ms(2), ms(0));
    m.calls.answered(
        ToolName::GetRepositoryFile,
        Some(ErrorKind::NotFound),
        ms(50),
        ms(45),
    );
    m.calls
        .not_run(ToolName::GetRepositoryFiles, ErrorKind::Timeout);
    m.calls
        .not_run(ToolName::GetRepositoryFile, ErrorKind::Timeout);
    m.gitlab.request(Endpoint::Graphql, Some(200));
    m.gitlab.request(Endpoint::Graphql, Some(502));
    m.gitlab.request(Endpoint::Lfs, None);
    m.gitlab.retry(Endpoint::Graphql);
    m.gitlab.received(Endpoint::Graphql, 1_000);
    m.gitlab.received(Endpoint::Graphql, 24);
    m.gitlab.received(Endpoint::RestRaw, 7);
    m.cache.lookup(true);
    m.cache.lookup(false);
    m.cache.lookup(true);
    m.cache.state(4096, 3, 0);
    m.cache.state(100, 1, 5);
    m.cache.state(150, 2, 5);
    m.cache.verification_failed(Endpoint::RestRaw);
    m.http.refused(Guard::Origin);
    m.http.refused(Guard::Origin);
    m.http.refused(Guard::Capacity);
    let s = scrape(&m);
    let calls = "gitlab_file_mcp_tool_calls_total";
    assert_eq!(
        value(
            &s,
            calls,
            &[("tool", "get_repository_file"), ("outcome", "ok")]
        ),
        2.0
    );
    let one = ("tool", "get_repository_file");
    let batch = ("tool", "get_repository_files");
    assert_eq!(value(&s, calls, &[one, ("kind", "not_found")]), 1.0);
    assert_eq!(value(&s, calls, &[one, ("kind", "timeout")]), 1.0);
    assert_eq!(value(&s, calls, &[one, ("kind", "binary")]), 0.0);
    // Each tool its own series.
    assert_eq!(value(&s, calls, &[batch, ("kind", "timeout")]), 1.0);
    assert_eq!(value(&s, calls, &[batch, ("kind", "binary")]), 0.0);
    assert_eq!(value(&s, calls, &[batch, ("kind", "not_found")]), 0.0);
    let durations = "gitlab_file_mcp_tool_call_duration_seconds";
    for part in ["total", "gitlab", "own"] {
        // The cut-off call has no duration.
        assert_eq!(histogram_count(&s, durations, part), 3.0, "{part}");
    }
    let sum = |part| value(&s, &format!("{durations}_sum"), &[one, ("part", part)]);
    assert!((sum("total") - 0.082).abs() < 1e-9, "{}", sum("total"));
    assert!((sum("gitlab") - 0.065).abs() < 1e-9);
    assert!((sum("own") - 0.017).abs() < 1e-9);
    let requests = "gitlab_file_mcp_gitlab_requests_total";
    let req = |endpoint, class| {
        value(
            &s,
            requests,
            &[("endpoint", endpoint), ("status_class", class)],
        )
    };
    assert_eq!(req("graphql", "2xx"), 1.0);
    assert_eq!(req("graphql", "5xx"), 1.0);
    assert_eq!(req("lfs", "no_answer"), 1.0);
    assert_eq!(req("rest_raw", "2xx"), 0.0);
    let by = |name: &str, endpoint| value(&s, name, &[("endpoint", endpoint)]);
    assert_eq!(by("gitlab_file_mcp_gitlab_retries_total", "graphql"), 1.0);
    let received = "gitlab_file_mcp_gitlab_received_bytes_total";
    assert_eq!(by(received, "graphql"), 1_024.0);
    assert_eq!(by(received, "rest_raw"), 7.0);
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_hits_total", &[]), 2.0);
    assert_eq!(
        value(&s, "gitlab_file_mcp_blob_cache_misses_total", &[]),
        1.0
    );
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_bytes", &[]), 150.0);
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_entries", &[]), 2.0);
    // Reported as a running total: 5, then 5 again, is 5 evictions.
    assert_eq!(
        value(&s, "gitlab_file_mcp_blob_cache_evictions_total", &[]),
        5.0
    );
    let failures = "gitlab_file_mcp_blob_cache_verification_failures_total";
    assert_eq!(by(failures, "rest_raw"), 1.0);
    let refused = "gitlab_file_mcp_http_refused_requests_total";
    assert_eq!(value(&s, refused, &[("guard", "origin")]), 2.0);
    assert_eq!(value(&s, refused, &[("guard", "capacity")]), 1.0);
    assert_eq!(value(&s, refused, &[("guard", "token")]), 0.0);
}

#[test]
fn durations_fall_in_the_buckets_they_should() {
    let m = Metrics::new();
    m.calls.answered(
        ToolName::GetRepositoryFile,
        None,
        Duration::from_micros(80),
        Duration::ZERO,
    );
    let s = scrape(&m);
    let sample = s
        .samples
        .iter()
        .find(|x| {
            x.metric == "gitlab_file_mcp_tool_call_duration_seconds"
                && x.labels.get("part") == Some("total")
                && x.labels.get("tool") == Some("get_repository_file")
        })
        .expect("the total histogram");
    let Value::Histogram(buckets) = &sample.value else {
        panic!("not a histogram: {sample:?}");
    };
    let count = |le: f64| {
        buckets
            .iter()
            .find(|b| (b.less_than - le).abs() < 1e-12)
            .map(|b| b.count)
    };
    // 80 µs: not in the 50 µs bucket, in the 100 µs one and every one above.
    assert_eq!(count(0.000_05), Some(0.0));
    assert_eq!(count(0.000_1), Some(1.0));
    assert_eq!(count(30.0), Some(1.0));
    assert_eq!(buckets.len(), DURATION_BUCKETS.len() + 1, "with +Inf");
    assert!(DURATION_BUCKETS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_exposition_has_only_known_label_values() {
    let m = Metrics::new();
    let s = scrape(&m);
    let allowed: HashMap<&str, Vec<&str>> = HashMap::from([
        (
            "tool",
            vec![
                "get_repository_file",
                "get_repository_files",
                "search_repository",
            ],
        ),
        ("outcome", vec!["ok", "tool_error"]),
        ("kind", {
            let mut v: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
            v.push("");
            v
        }),
        ("part", vec!["total", "gitlab", "own"]),
        (
            "endpoint",
            vec!["graphql", "rest_raw", "lfs", "code_search"],
        ),
        (
            "status_class",
            vec!["1xx", "2xx", "3xx", "4xx", "5xx", "no_answer"],
        ),
        ("guard", Guard::ALL.iter().map(|g| g.as_str()).collect()),
        ("step", SignInStep::ALL.iter().map(|g| g.as_str()).collect()),
    ]);
    for sample in &s.samples {
        for (name, value) in sample.labels.iter() {
            let known = allowed.get(name.as_str());
            assert!(
                known.is_some_and(|values| values.contains(&value.as_str())),
                "{}: {name}={value}",
                sample.metric
            );
        }
    }
}

#[test]
fn a_running_guard_holds_its_gauge_until_dropped() {
    let m: &'static Metrics = Box::leak(Box::new(Metrics::new()));
    let one = Running::new(Some(&m.calls.in_flight));
    let two = Running::new(Some(&m.calls.in_flight));
    assert_eq!(m.calls.in_flight.get(), 2);
    drop(one);
    assert_eq!(m.calls.in_flight.get(), 1);
    drop(two);
    assert_eq!(m.calls.in_flight.get(), 0);
    // Off: nothing to count, nothing to panic about.
    drop(Running::new(None));
}
