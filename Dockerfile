# Multi-stage build: compile with the Rust toolchain, run on a slim Debian as non-root.
#   docker build -t sitefeed .
#   docker run -d -p 8080:8080 -v sitefeed:/var/lib/sitefeed \
#       -e SITEFEED_BASE_URL=https://feeds.example.org sitefeed
# SITEFEED_BASE_URL is optional: without it, feed URLs follow the address each request
# came to. Every setting can be given as SITEFEED_<SECTION>_<KEY> (see the README).
FROM rust:1-bookworm AS build
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when Cargo.toml or
# Cargo.lock change, not on every source edit.
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
COPY benches ./benches
COPY bench ./bench
RUN mkdir src && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
    && cargo build --release --locked --no-default-features --bin sitefeed \
    && rm -rf src
COPY src ./src
COPY config ./config
# Newer than the placeholder build, so cargo rebuilds the crate itself. Without the
# `eval` feature: the service does not carry the corpus scoring and synthetic sites.
RUN touch src/main.rs src/lib.rs \
    && cargo build --release --locked --no-default-features --bin sitefeed \
    && strip target/release/sitefeed

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/sitefeed --create-home sitefeed
COPY --from=build /src/target/release/sitefeed /usr/local/bin/sitefeed
COPY config/sitefeed.toml /etc/sitefeed/sitefeed.toml
ENV SITEFEED_CONFIG=/etc/sitefeed/sitefeed.toml \
    SITEFEED_DATA=/var/lib/sitefeed/data \
    SITEFEED_LISTEN=0.0.0.0:8080
USER sitefeed
VOLUME ["/var/lib/sitefeed"]
EXPOSE 8080
# Asks /healthz (not only whether the port is open): the server must answer "ok".
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
    CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && grep -q '^ok' <&3"]
ENTRYPOINT ["/usr/local/bin/sitefeed"]
CMD ["serve"]
