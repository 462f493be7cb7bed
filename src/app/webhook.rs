//! Webhooks: a check's new items POSTed as a JSON Feed to the watch's URL, in the
//! background, retried with backoff, the outcome recorded on the watch.

use std::sync::Arc;

use super::App;
use crate::check::CheckReport;
use crate::model::Watch;

impl App {
    /// Sends the new items of a check to the watch's webhook, if it has one, in the
    /// background: a POST of a JSON Feed, retried with backoff ([`WEBHOOK_ATTEMPTS`]
    /// attempts), its outcome recorded on the watch (`webhook_error`). The webhook and the
    /// feed's title are those of the watch the check read ([`CheckReport::watch`]); `watch`,
    /// which its caller may have read before an edit, only stands in for a report without
    /// one.
    pub fn notify(self: &Arc<Self>, watch: &Watch, report: &CheckReport) {
        let watch = report.watch.as_ref().unwrap_or(watch);
        let Some(hook) = watch.options.webhook.clone() else {
            return;
        };
        if report.new_items.is_empty() {
            return;
        }
        let app = self.clone();
        let watch = watch.clone();
        let (items, reading) = (report.new_items.clone(), report.reading);
        tokio::spawn(async move {
            // The feed's title reads the watch's state (a round trip on PostgreSQL) and
            // the feed is rendered: both off the async workers.
            let id = watch.id.clone();
            let render = app.clone();
            let body = crate::cpu::run(move || render.webhook_body(&watch, &items)).await;
            // The items leave the process: durable first. A store that cannot write
            // them sends nothing now; the items stay in the feed.
            let error = match app.settle(reading).await {
                Ok(()) => deliver(&hook, body).await.err(),
                Err(e) => Some(e.to_string()),
            };
            if let Some(e) = &error {
                tracing::warn!(id = %id, webhook = %hook, error = %e, "webhook failed");
            }
            let lock = app.lock_for(&id);
            let _guard = lock.lock().await;
            // A write of the store: off the async workers, as the requests' writes.
            let (record, key) = (app.clone(), id.clone());
            let recorded = crate::cpu::write_on_disk(move || {
                record
                    .store
                    .set_webhook_outcome(&key, record.clock.now(), error)
            })
            .await;
            if let Err(e) = recorded {
                tracing::warn!(id = %id, error = %e, "cannot record the webhook outcome");
            }
        });
    }

    /// The JSON Feed a webhook posts: `items` of `watch`, under the title its feed shows.
    fn webhook_body(&self, watch: &Watch, items: &[crate::model::Item]) -> String {
        let title = self.display_title(watch, self.store.state(&watch.id).ok().flatten().as_ref());
        crate::render::json_feed(&crate::render::FeedView {
            watch,
            title: &title,
            items,
            base_url: &self.base_url(),
            key_query: &self.key_query(),
            updated: items.first().map_or(watch.created, |i| i.first_seen),
            ttl_minutes: None,
            icon: None,
            self_path: None,
        })
    }
}

/// Attempts of a webhook delivery, and the pause before the second (doubling after).
pub(crate) const WEBHOOK_ATTEMPTS: u32 = 3;
const WEBHOOK_BACKOFF: std::time::Duration = std::time::Duration::from_millis(500);

/// POSTs `body` (a JSON Feed) to `url`; a 2xx answer is a delivery. Timeouts, connection
/// errors and 5xx are tried again after a pause; `Err` says why the last attempt failed.
async fn deliver(url: &str, body: String) -> Result<(), String> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(15))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let mut wait = WEBHOOK_BACKOFF;
    let mut last = String::new();
    for attempt in 1..=WEBHOOK_ATTEMPTS {
        let r = client
            .post(url)
            .header("content-type", "application/feed+json")
            .body(body.clone())
            .send()
            .await;
        let retry = match r {
            Ok(resp) if resp.status().is_success() => return Ok(()),
            Ok(resp) => {
                last = format!("the webhook answered {}", resp.status().as_u16());
                resp.status().is_server_error() || resp.status().as_u16() == 429
            }
            Err(e) => {
                last = format!("the webhook cannot be reached: {e}");
                true
            }
        };
        if !retry || attempt == WEBHOOK_ATTEMPTS {
            break;
        }
        tokio::time::sleep(wait).await;
        wait *= 2;
    }
    Err(format!(
        "{last} (after {WEBHOOK_ATTEMPTS} attempts at most)"
    ))
}
