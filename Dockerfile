# Multi-stage build: compile with the Rust toolchain, run on a slim Debian as non-root.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY benches ./benches
COPY bench ./bench
COPY config ./config
RUN cargo build --release --locked --bin sitefeed

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/sitefeed --create-home sitefeed
COPY --from=build /src/target/release/sitefeed /usr/local/bin/sitefeed
COPY config/sitefeed.toml /etc/sitefeed/sitefeed.toml
ENV SITEFEED_CONFIG=/etc/sitefeed/sitefeed.toml \
    SITEFEED_DATA=/var/lib/sitefeed/data \
    SITEFEED_LISTEN=0.0.0.0:8080 \
    MIMALLOC_ARENA_EAGER_COMMIT=0 \
    MIMALLOC_PURGE_DELAY=0
USER sitefeed
VOLUME ["/var/lib/sitefeed"]
EXPOSE 8080
HEALTHCHECK CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080"]
ENTRYPOINT ["/usr/local/bin/sitefeed"]
CMD ["serve"]
