//! Starting Chromium: the flags, a fresh profile directory, the DevTools address it
//! prints, and what its processes use (memory, CPU) read from `/proc`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The flags of a launched browser. Headless, no sandbox (it runs as the service's user,
/// often in a container), and nothing that talks to the network by itself: every
/// request a page makes is answered by sitefeed's fetcher through request interception,
/// so the browser has no reason to resolve a name or open a connection of its own
/// (`--host-resolver-rules` makes every name it would resolve unknown).
pub(crate) const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    // A page's timers run at their pace, not a hidden tab's (else a page that keeps
    // changing would look settled between throttled ticks).
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
    "about:blank",
];

/// A browser process started by sitefeed, killed (and its profile removed) on drop.
#[derive(Debug)]
pub struct Launched {
    pub child: Child,
    pub ws_url: String,
    profile: PathBuf,
}

impl Drop for Launched {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        // Wait a moment for it to exit, or it writes on into the profile being removed.
        for _ in 0..100 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Its helper processes may still write for a moment after it exited.
        for _ in 0..20 {
            let _ = std::fs::remove_dir_all(&self.profile);
            if !self.profile.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Launched {
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }
}

/// A fresh, empty profile directory under the system's temporary directory.
fn profile_dir() -> std::io::Result<PathBuf> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    loop {
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let p = base.join(format!(
            "sitefeed-chromium-{}-{n}-{}",
            std::process::id(),
            fastrand::u32(..)
        ));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
}

/// Starts `path` with [`FLAGS`] and waits (at most `wait`) for its DevTools address.
pub async fn launch(path: &Path, wait: Duration) -> Result<Launched, String> {
    launch_with(path, wait, FLAGS).await
}

/// Starts `path` with `flags` (and a fresh profile) and waits for its DevTools address.
pub(crate) async fn launch_with(
    path: &Path,
    wait: Duration,
    flags: &[&str],
) -> Result<Launched, String> {
    let profile = profile_dir().map_err(|e| format!("cannot create a profile directory: {e}"))?;
    let spawned = Command::new(path)
        .args(flags)
        .arg(format!("--user-data-dir={}", profile.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&profile);
            return Err(format!(
                "cannot start the browser `{}`: {e} (install Chromium, e.g. Debian's \
                 `chromium`, or set browser.path or browser.ws_url)",
                path.display()
            ));
        }
    };
    let Some(stderr) = child.stderr.take() else {
        return Err("the browser's stderr is not readable".into());
    };
    let mut launched = Launched {
        child,
        ws_url: String::new(),
        profile,
    };
    let mut lines = BufReader::new(stderr).lines();
    let found = tokio::time::timeout(wait, async {
        let mut last = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(rest) = line.split("DevTools listening on ").nth(1) {
                return Ok(rest.trim().to_owned());
            }
            last = line;
        }
        Err(format!("the browser exited before it listened: {last}"))
    })
    .await
    .map_err(|_| format!("the browser did not start within {}s", wait.as_secs()))??;
    launched.ws_url = found;
    // Keep reading its stderr, or the browser blocks on a full pipe.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::trace!(target: "sitefeed::browser", "{line}");
        }
    });
    Ok(launched)
}

/// The proportional set size of `pid`, from `/proc/<pid>/smaps_rollup`.
fn pss_bytes(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let line = text.lines().find(|l| l.starts_with("Pss:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What a process and all its descendants use: memory and CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Proportional set size summed over the processes (resident size where unknown).
    pub rss_bytes: u64,
    pub cpu: Duration,
    pub processes: usize,
}

/// The usage of `root` and its descendants, from `/proc` (`None` where there is none).
pub fn tree_usage(root: u32) -> Option<Usage> {
    let mut procs: Vec<(u32, u32, u64, u64)> = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name may hold spaces and parentheses: fields follow the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // After the name: state(0) ppid(1) … utime(11) stime(12) … rss(21), in pages.
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        let parent = u32::try_from(num(1)).unwrap_or(0);
        procs.push((pid, parent, num(11) + num(12), num(21)));
    }
    if !procs.iter().any(|p| p.0 == root) {
        return None;
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(procs.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    let mut u = Usage::default();
    let (mut ticks, mut bytes) = (0, 0);
    for p in procs.iter().filter(|p| tree.contains(&p.0)) {
        ticks += p.2;
        // The proportional share (PSS): the processes share much of their memory, which
        // a sum of resident sizes would count once per process.
        bytes += pss_bytes(p.0).unwrap_or(p.3 * 4096);
        u.processes += 1;
    }
    // Linux reports CPU in clock ticks of 1/100 s (and pages of 4 KiB) on the machines
    // this runs on.
    u.cpu = Duration::from_millis(ticks * 10);
    u.rss_bytes = bytes;
    Some(u)
}
