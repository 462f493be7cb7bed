//! The store commands (`add`, `list`, `remove`, `edit`, `check`, OPML) through a running
//! server's API, when `sitefeed serve` holds the store: the same commands and the same
//! output as the local ones, over the typed client [`crate::remote::Client`].

use std::io::Write;

use super::{confirm_removal, paste_hint, print, Command};
use crate::config::Config;
use crate::error::Error;
use crate::remote::Client;

/// Runs `command` against the server that `config` describes.
pub(super) async fn run(
    config: &Config,
    command: Command,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let api = Client::new(config)?;
    match command {
        Command::Add(args) => {
            let (w, added) = api.add(&args.to_body()).await?;
            print::added(out, &w.id, &w.feed_url, added)?;
            paste_hint(config, &w.feed_url);
        }
        Command::List => print::list(out, &api.list().await?)?,
        Command::Remove { id, yes } => {
            let id = api.resolve(&id).await?;
            confirm_removal(&id, yes)?;
            api.remove(&id).await?;
            writeln!(out, "removed {id}")?;
        }
        Command::Check { target, dry_run } => {
            let id = api.resolve(&target).await?;
            let r = api.check(&id, dry_run).await?;
            if let Some(e) = r.error {
                return Err(Error::Failed(format!("check of {id} failed: {e}")));
            }
            print::checked(out, &r.items, r.baseline)?;
        }
        Command::Edit { target, args } => {
            let id = api.resolve(&target).await?;
            let before = api.watch(&id).await?;
            let w = api.edit(&id, &args.to_body()).await?;
            let rebaselined = before.select != w.select || before.depth != w.depth;
            print::edited(out, &w, rebaselined)?;
        }
        Command::ImportOpml { file } => {
            let opml = std::fs::read_to_string(&file)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", file.display())))?;
            print::imported(out, &api.import_opml(opml).await?)?;
        }
        Command::ExportOpml => out.write_all(api.export_opml().await?.as_bytes())?,
        Command::Serve
        | Command::Diff { .. }
        | Command::Replay { .. }
        | Command::Migrate { .. } => {}
        #[cfg(feature = "eval")]
        Command::Eval { .. } | Command::Synth { .. } => {}
    }
    Ok(())
}
