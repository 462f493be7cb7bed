//! What the store commands print, the same whether they ran on the store or through a
//! running server: both hand over the API's shapes ([`crate::dto`]).

use std::io::Write;

use crate::dto::{ItemJson, OpmlReport, WatchJson};
use crate::error::Error;

/// `add`: the id, the feed URL, and whether the watch is new.
pub fn added(out: &mut dyn Write, id: &str, feed: &str, added: bool) -> Result<(), Error> {
    let verb = if added { "added" } else { "exists" };
    writeln!(out, "{id}\t{feed}\t{verb}")?;
    Ok(())
}

/// `list`: one line per watch under a header.
pub fn list(out: &mut dyn Write, watches: &[WatchJson]) -> Result<(), Error> {
    writeln!(out, "ID\tURL\tLAST CHECK\tSTATUS\tITEMS\tTAGS")?;
    for w in watches {
        let mut status = match &w.error {
            Some(e) => format!("error: {e}"),
            None => w.status.clone(),
        };
        if w.paused {
            status = format!("paused, {status}");
        }
        writeln!(
            out,
            "{}\t{}\t{}\t{status}\t{}\t{}",
            w.id,
            w.url,
            w.last_check.as_deref().unwrap_or("never"),
            w.item_count,
            w.tags.join(",")
        )?;
    }
    Ok(())
}

/// `check`: the new items, one JSON object per line; a note on stderr after a baseline.
pub fn checked(out: &mut dyn Write, items: &[ItemJson], baseline: bool) -> Result<(), Error> {
    for i in items {
        writeln!(
            out,
            "{}",
            serde_json::json!({"title": i.title, "link": i.link})
        )?;
    }
    if baseline {
        eprintln!("first check: baseline set, nothing is new yet");
    }
    Ok(())
}

/// `edit`: the watch's settings, and a re-baseline when there was one.
pub fn edited(out: &mut dyn Write, w: &WatchJson, rebaselined: bool) -> Result<(), Error> {
    writeln!(
        out,
        "edited {}\ttitle: {}\tselect: {}\tdepth: {}\ttags: {}\t{}",
        w.id,
        w.title,
        w.select.as_deref().unwrap_or("-"),
        w.depth,
        w.tags.join(","),
        if w.paused { "paused" } else { "active" }
    )?;
    if rebaselined {
        writeln!(
            out,
            "re-baselined: the next check records the page again; nothing already on it becomes an item"
        )?;
    }
    Ok(())
}

/// `import-opml`: the counts, then each rejected outline and why.
pub fn imported(out: &mut dyn Write, report: &OpmlReport) -> Result<(), Error> {
    writeln!(
        out,
        "added {}, existing {}, rejected {}",
        report.added,
        report.existing,
        report.rejected.len()
    )?;
    for r in &report.rejected {
        writeln!(out, "rejected {}: {}", r.url, r.error)?;
    }
    Ok(())
}
