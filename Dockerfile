# Kasi: one image for the API (`npm start`) and the Temporal workers (`npm run worker`).
FROM node:20-bookworm-slim

WORKDIR /app

# Dependencies first, so a code change does not reinstall them. The lockfile pins every
# @temporalio/* package to one exact version; `npm ci` installs exactly that.
COPY package.json package-lock.json ./
RUN npm ci

COPY . .

# Listen on every interface inside the container; compose publishes the port (on 127.0.0.1).
# Beyond loopback /metrics answers only with METRICS_TOKEN set (else 404): docs/operators/monitoring.md.
ENV HOST=0.0.0.0 \
    PORT=3000 \
    NODE_ENV=production

EXPOSE 3000
CMD ["npm", "start"]
