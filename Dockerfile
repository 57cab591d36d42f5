# syntax=docker/dockerfile:1
# obsync daemon image: `obsync run` reconciling /manifests, state in /var/lib/obsync.

FROM node:24-alpine AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-alpine
ENV NODE_ENV=production \
    OBSYNC_STATE_DIR=/var/lib/obsync \
    OBSYNC_LISTEN=0.0.0.0:9464
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /manifests /var/lib/obsync && chown node:node /var/lib/obsync
USER node
VOLUME ["/var/lib/obsync"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD ["node", "dist/cli/healthcheck.js"]
ENTRYPOINT ["node", "dist/cli/main.js", "run"]
CMD ["/manifests"]
