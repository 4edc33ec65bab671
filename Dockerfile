# Switchboard: one image for every role (ROLE=api, worker or all). Kept minimal; see docs/deploy.md.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies build the dashboard, then leave the image.
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build:web && npm prune --omit=dev --no-audit --no-fund
ENV DATA_DIR=/data HOST=0.0.0.0 PORT=8080
EXPOSE 8080
# SIGTERM drains: in-flight requests and jobs finish, then the process exits, within 30 s (give
# `docker run --stop-timeout 45`; compose.yaml sets stop_grace_period). Node is PID 1 itself, as in
# `npm start`: npx in between does not reliably pass SIGTERM on. The image's Node is 24.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=64", "src/main.ts", "serve"]
