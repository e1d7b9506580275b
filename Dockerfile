# Demo application image: build the library and the demo, then run the demo on plain Node.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci` refuses this lock file: the registry it was made against serves only some platforms'
# optional binaries (@swc/core-*, @unrs/resolver-binding-*), so the lock cannot list the others and
# npm calls it out of sync (as in .ci/run). `npm install` then installs the same locked versions.
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "dist/apps/demo/main.js"]
