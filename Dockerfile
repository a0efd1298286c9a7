# tracedrill bot: `docker run -e DATABASE_URL=... -e SLACK_BOT_TOKEN=... tracedrill`
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 MPLBACKEND=Agg PIP_NO_CACHE_DIR=1
RUN useradd --create-home --uid 10001 tracedrill
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY migrations ./migrations
RUN pip install . && rm -rf /root/.cache
USER tracedrill
# Configuration comes from the environment: DATABASE_URL, SLACK_*, DISCORD_TOKEN, TRACEDRILL_*.
CMD ["tracedrill", "serve"]
