# syntax=docker/dockerfile:1
# tracedrill bot. Configuration comes from the environment (see README "Deploy"):
#   docker run -e TRACEDRILL_PLATFORM=slack -e TRACEDRILL_HTTP_PORT=3000 -e SLACK_BOT_TOKEN=… \
#              -e SLACK_SIGNING_SECRET=… -e DATABASE_URL=postgresql://… -p 3000:3000 tracedrill

# --- build: wheels for the locked dependencies and for tracedrill itself (migrations ship inside it) ---
FROM python:3.11.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY requirements.lock ./
RUN pip wheel --require-hashes --wheel-dir /wheels -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip wheel --no-deps --wheel-dir /wheels .

# --- run: only the installed wheels, as a non-root user ---
FROM python:3.11.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 MPLBACKEND=Agg PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 TRACEDRILL_HEALTH_PORT=8080
RUN useradd --create-home --uid 10001 tracedrill
COPY --from=build /wheels /wheels
# Every wheel was hash-checked or built in the build stage; install exactly those, nothing from an index.
RUN pip install --no-index --no-deps /wheels/*.whl && rm -rf /wheels
USER 10001
WORKDIR /home/tracedrill
# 3000: Slack HTTP events (TRACEDRILL_HTTP_PORT); 8080: /healthz and /readyz (TRACEDRILL_HEALTH_PORT).
EXPOSE 3000 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["tracedrill", "healthcheck"]
CMD ["tracedrill", "serve"]
