//! The registry: every metric family, registered once with its help text, and a handle to
//! each of its series made up front (every label combination is bounded), so recording is an
//! atomic add (or, for a histogram, a short locked update) with no lookup by label. One group
//! per layer: the tool calls, GitLab requests, the blob cache, the HTTP listener.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::TypedMetric;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use super::labels::{
    CallLabels, DurationLabels, Endpoint, EndpointLabels, ErrorKind, Guard, GuardLabels,
    LabelValue, Outcome, Part, RequestLabels, SignInLabels, SignInStep, StatusClass,
};
use crate::base::tool_name::ToolName;

/// Every metric name starts `gitlab_file_mcp_`.
pub(crate) const PREFIX: &str = "gitlab_file_mcp";

/// Bucket bounds of the call-duration histogram, in seconds: 50 µs (a cached window's own
/// time) to 30 s (GitLab's request timeout).
pub(crate) const DURATION_BUCKETS: [f64; 18] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The metrics of one server process.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    pub(crate) calls: CallMetrics,
    pub(crate) gitlab: GitlabMetrics,
    pub(crate) cache: CacheMetrics,
    pub(crate) outlines: OutlineMetrics,
    pub(crate) trees: TreeCacheMetrics,
    pub(crate) http: HttpMetrics,
}

impl Metrics {
    pub(crate) fn new() -> Self {
        let mut registry = Registry::with_prefix(PREFIX);
        let calls = CallMetrics::register(&mut registry);
        let gitlab = GitlabMetrics::register(&mut registry);
        let cache = CacheMetrics::register(&mut registry);
        let outlines = register_outline(&mut registry);
        let trees = register_trees(&mut registry);
        let http = HttpMetrics::register(&mut registry);
        Self {
            registry,
            calls,
            gitlab,
            cache,
            outlines,
            trees,
            http,
        }
    }

    /// The exposition, in the Prometheus text format (version 0.0.4).
    pub(crate) fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail; an encoding error would leave the text short.
        if prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry).is_err()
        {
            tracing::warn!("the metrics could not be encoded whole");
        }
        text
    }
}

/// Registers a family whose series are `labels`, returning a handle to each, in order.
fn series<S, M>(
    registry: &mut Registry,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    family: Family<S, M, fn() -> M>,
    labels: impl IntoIterator<Item = S>,
) -> Vec<M>
where
    S: EncodeLabelSet + Clone + Hash + Eq + Debug + Send + Sync + 'static,
    M: TypedMetric + EncodeMetric + Clone + Debug + Send + Sync + 'static,
{
    let handles = labels
        .into_iter()
        .map(|l| family.get_or_create(&l).clone())
        .collect();
    match unit {
        Some(unit) => registry.register_with_unit(name, help, unit, family),
        None => registry.register(name, help, family),
    }
    handles
}

fn counters<S: Clone + Hash + Eq>() -> Family<S, Counter, fn() -> Counter> {
    Family::new_with_constructor(Counter::default)
}

/// A metric without labels, registered.
fn single<M: EncodeMetric + TypedMetric + Clone + Debug + Default + Send + Sync + 'static>(
    registry: &mut Registry,
    name: &str,
    help: &str,
    unit: Option<Unit>,
) -> M {
    let metric = M::default();
    match unit {
        Some(unit) => registry.register_with_unit(name, help, unit, metric.clone()),
        None => registry.register(name, help, metric.clone()),
    }
    metric
}

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// Tool calls: outcomes, durations, calls running.
#[derive(Debug)]
pub(crate) struct CallMetrics {
    /// Index: [`ToolName`] × (`None` (ok) first, then each [`ErrorKind`]).
    answered: Vec<Counter>,
    /// Index: [`ToolName`] × [`Part`].
    durations: Vec<Histogram>,
    pub(crate) in_flight: Gauge,
    /// Views rendered where the call runs, and on the CPU pool.
    pub(crate) renders_inline: Counter,
    pub(crate) renders_pooled: Counter,
}

/// The outcomes of one tool: ok, then each error kind.
const OUTCOMES: usize = 1 + ErrorKind::ALL.len();

impl CallMetrics {
    fn register(r: &mut Registry) -> Self {
        let outcomes = ToolName::ALL.iter().flat_map(|&tool| {
            std::iter::once(None)
                .chain(ErrorKind::ALL.iter().copied().map(Some))
                .map(move |kind| CallLabels {
                    tool,
                    outcome: kind.map_or(Outcome::Ok, |_| Outcome::ToolError),
                    kind,
                })
        });
        let answered = series(
            r,
            "tool_calls",
            "Tool calls answered, by tool and outcome (kind: the tool error's)",
            None,
            counters(),
            outcomes,
        );
        let parts = ToolName::ALL.iter().flat_map(|&tool| {
            Part::ALL
                .iter()
                .map(move |&part| DurationLabels { tool, part })
        });
        let durations = series(
            r,
            "tool_call_duration",
            "Time of a tool call: total, waiting on GitLab, and the server's own",
            Some(Unit::Seconds),
            Family::new_with_constructor(duration_histogram as fn() -> Histogram),
            parts,
        );
        let in_flight = single(r, "tool_calls_in_flight", "Tool calls running now", None);
        let renders_inline = single(
            r,
            "view_renders_inline",
            "Views rendered where the call runs, without the CPU pool (windows, small blobs)",
            None,
        );
        let renders_pooled = single(
            r,
            "view_renders_pooled",
            "Views rendered on the CPU pool (searches, outlines of large blobs)",
            None,
        );
        Self {
            answered,
            durations,
            in_flight,
            renders_inline,
            renders_pooled,
        }
    }

    /// A call of `tool` answered, `error` its tool error's kind if any, after `total` of which
    /// `gitlab` was spent waiting on GitLab.
    pub(crate) fn answered(
        &self,
        tool: ToolName,
        error: Option<ErrorKind>,
        total: Duration,
        gitlab: Duration,
    ) {
        let outcome = error.map_or(0, |kind| kind as usize + 1);
        self.answered[tool as usize * OUTCOMES + outcome].inc();
        let own = total.saturating_sub(gitlab);
        for (part, time) in [
            (Part::Total, total),
            (Part::Gitlab, gitlab),
            (Part::Own, own),
        ] {
            let at = tool as usize * Part::ALL.len() + part as usize;
            self.durations[at].observe(time.as_secs_f64());
        }
    }

    /// A call of `tool` answered without running to its end: counted, with no duration.
    pub(crate) fn not_run(&self, tool: ToolName, kind: ErrorKind) {
        self.answered[tool as usize * OUTCOMES + kind as usize + 1].inc();
    }
}

/// Requests to GitLab.
#[derive(Debug)]
pub(crate) struct GitlabMetrics {
    /// Index: [`Endpoint`] × [`StatusClass`].
    requests: Vec<Counter>,
    /// Index: [`Endpoint`], as the next two.
    retries: Vec<Counter>,
    received: Vec<Counter>,
}

fn by_endpoint() -> impl Iterator<Item = EndpointLabels> {
    Endpoint::ALL
        .iter()
        .map(|&endpoint| EndpointLabels { endpoint })
}

impl GitlabMetrics {
    fn register(r: &mut Registry) -> Self {
        let labels = Endpoint::ALL.iter().flat_map(|&endpoint| {
            StatusClass::ALL
                .iter()
                .map(move |&status_class| RequestLabels {
                    endpoint,
                    status_class,
                })
        });
        let requests = series(
            r,
            "gitlab_requests",
            "Requests to GitLab (each attempt), by endpoint and status class",
            None,
            counters(),
            labels,
        );
        let retries = series(
            r,
            "gitlab_retries",
            "Requests to GitLab retried (429, 5xx, reset connections), by endpoint",
            None,
            counters(),
            by_endpoint(),
        );
        let received = series(
            r,
            "gitlab_received",
            "Body bytes received from GitLab, by endpoint",
            Some(Unit::Bytes),
            counters(),
            by_endpoint(),
        );
        Self {
            requests,
            retries,
            received,
        }
    }

    /// One attempt's answer: its status, or `None` when none came.
    pub(crate) fn request(&self, endpoint: Endpoint, status: Option<u16>) {
        let class = StatusClass::of(status) as usize;
        self.requests[endpoint as usize * StatusClass::ALL.len() + class].inc();
    }

    pub(crate) fn retry(&self, endpoint: Endpoint) {
        self.retries[endpoint as usize].inc();
    }

    pub(crate) fn received(&self, endpoint: Endpoint, bytes: usize) {
        self.received[endpoint as usize].inc_by(bytes as u64);
    }
}

/// What a byte-bounded cache reports (the blob cache, the outline cache): lookups that found
/// an entry or not, what it holds, and evictions.
#[derive(Debug)]
pub(crate) struct LruMetrics {
    hits: Counter,
    misses: Counter,
    bytes: Gauge,
    entries: Gauge,
    evictions: Counter,
    /// The cache's eviction total when last reported, so the counter advances by the difference.
    evictions_seen: AtomicU64,
}

/// The help texts of one cache's [`LruMetrics`].
struct LruHelp {
    hits: &'static str,
    misses: &'static str,
    bytes: &'static str,
    entries: &'static str,
    evictions: &'static str,
}

impl LruMetrics {
    /// Registers `PREFIX_hits`, `PREFIX_misses`, `PREFIX` (bytes), `PREFIX_entries` and
    /// `PREFIX_evictions`.
    fn register(r: &mut Registry, prefix: &str, help: LruHelp) -> Self {
        Self {
            hits: single(r, &format!("{prefix}_hits"), help.hits, None),
            misses: single(r, &format!("{prefix}_misses"), help.misses, None),
            bytes: single(r, prefix, help.bytes, Some(Unit::Bytes)),
            entries: single(r, &format!("{prefix}_entries"), help.entries, None),
            evictions: single(r, &format!("{prefix}_evictions"), help.evictions, None),
            evictions_seen: AtomicU64::new(0),
        }
    }

    pub(crate) fn lookup(&self, found: bool) {
        if found { &self.hits } else { &self.misses }.inc();
    }

    /// The cache's state after a change; `evictions` is its running total.
    pub(crate) fn state(&self, bytes: u64, entries: usize, evictions: u64) {
        self.bytes.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        self.entries.set(i64::try_from(entries).unwrap_or(i64::MAX));
        let before = self.evictions_seen.fetch_max(evictions, Ordering::Relaxed);
        self.evictions.inc_by(evictions.saturating_sub(before));
    }
}

/// The blob cache: its [`LruMetrics`] and the content it refused.
#[derive(Debug)]
pub(crate) struct CacheMetrics {
    lru: LruMetrics,
    /// Index: [`Endpoint`].
    verification_failures: Vec<Counter>,
}

impl CacheMetrics {
    fn register(r: &mut Registry) -> Self {
        let help = LruHelp {
            hits: "Blob cache lookups that found the blob",
            misses: "Blob cache lookups that did not find the blob",
            bytes: "Bytes of content the blob cache holds",
            entries: "Blobs the cache holds",
            evictions: "Blobs evicted from the cache over its byte budget",
        };
        Self {
            lru: LruMetrics::register(r, "blob_cache", help),
            verification_failures: series(
                r,
                "blob_cache_verification_failures",
                "Content refused by the cache for not being the blob it claimed to be, by endpoint",
                None,
                counters(),
                by_endpoint(),
            ),
        }
    }

    pub(crate) fn lookup(&self, found: bool) {
        self.lru.lookup(found);
    }

    /// The cache's state after a change; `evictions` is its running total.
    pub(crate) fn state(&self, bytes: u64, entries: usize, evictions: u64) {
        self.lru.state(bytes, entries, evictions);
    }

    pub(crate) fn verification_failed(&self, endpoint: Endpoint) {
        self.verification_failures[endpoint as usize].inc();
    }
}

/// The outline cache: lookups that found an outline or parsed one, and what it holds.
pub(crate) type OutlineMetrics = LruMetrics;

/// Registers the outline cache's [`LruMetrics`] (`outline_cache_*`).
fn register_outline(r: &mut Registry) -> OutlineMetrics {
    let help = LruHelp {
        hits: "Outline lookups that found the blob's outline",
        misses: "Outline lookups that parsed the blob",
        bytes: "Bytes of outlines the outline cache holds",
        entries: "Outlines the cache holds",
        evictions: "Outlines evicted from the cache over its byte budget",
    };
    LruMetrics::register(r, "outline_cache", help)
}

/// The tree cache of `search_repository`: lookups, and the tree entries it holds.
pub(crate) type TreeCacheMetrics = LruMetrics;

/// Registers the tree cache's [`LruMetrics`] (`tree_cache_*`); its weight is in bytes of
/// entries, its entries are listings (a directory at a commit).
fn register_trees(r: &mut Registry) -> TreeCacheMetrics {
    let help = LruHelp {
        hits: "Tree lookups that found the commit's listing cached",
        misses: "Tree lookups that listed the tree from the source",
        bytes: "Bytes of tree entries (paths, ids) the tree cache holds",
        entries: "Listings (a directory at a commit) the tree cache holds",
        evictions: "Listings evicted from the tree cache over its byte budget",
    };
    LruMetrics::register(r, "tree_cache", help)
}

/// The HTTP listener.
#[derive(Debug)]
pub(crate) struct HttpMetrics {
    /// Index: [`Guard`].
    refused: Vec<Counter>,
    /// Index: [`SignInStep`].
    sign_in: Vec<Counter>,
    pub(crate) open_connections: Gauge,
    pub(crate) open_sessions: Gauge,
}

impl HttpMetrics {
    fn register(r: &mut Registry) -> Self {
        Self {
            refused: series(
                r,
                "http_refused_requests",
                "HTTP requests refused before reaching MCP, by the check that refused them",
                None,
                counters(),
                Guard::ALL.iter().map(|&guard| GuardLabels { guard }),
            ),
            sign_in: series(
                r,
                "oauth_sign_in_steps",
                "Steps of the sign-in with GitLab (--oauth), done or refused",
                None,
                counters(),
                SignInStep::ALL.iter().map(|&step| SignInLabels { step }),
            ),
            open_connections: single(
                r,
                "http_open_connections",
                "HTTP connections open now",
                None,
            ),
            open_sessions: single(r, "http_open_sessions", "MCP sessions open now", None),
        }
    }

    pub(crate) fn refused(&self, guard: Guard) {
        self.refused[guard as usize].inc();
    }

    pub(crate) fn sign_in(&self, step: SignInStep) {
        self.sign_in[step as usize].inc();
    }
}
