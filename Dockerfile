# Deathmatch web image: daphne (http + websockets) or the clock worker; and (target `proxy`) the
# nginx in front of several of them, with the static files (docker-compose.yml).
# Front-end libraries come from the npm registry at build time (package.json),
# exactly as .ci/install does; nothing is fetched from a CDN at run time.

FROM node:20-slim AS frontend
WORKDIR /build
# the lock's versions exactly (npm ci), as requirements.txt pins the Python side
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && mkdir -p vendor \
 && cp node_modules/htmx.org/dist/htmx.min.js vendor/htmx.min.js \
 && cp node_modules/htmx-ext-ws/dist/ws.js vendor/htmx-ext-ws.js \
 && cp node_modules/idiomorph/dist/idiomorph.min.js vendor/idiomorph.min.js

FROM python:3.11-slim AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# the locked versions and files only (requirements.txt, made by .ci/lock from pyproject.toml), in a
# layer of their own that a change to the app's code does not rebuild
COPY requirements.txt ./
RUN pip install --require-hashes -r requirements.txt
COPY . .
RUN python .ci/lockcheck.py && pip install --no-deps .
COPY --from=frontend /build/vendor ./static/vendor
# collectstatic needs settings, not secrets: a throwaway key for this step only
RUN DJANGO_DEBUG=0 DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput \
 && useradd --system --create-home deathmatch \
 && chown -R deathmatch /app
USER deathmatch
ENV DJANGO_DEBUG=0
EXPOSE 8000
# the open-files limit raised as far as the host allows, and logged (config/deploy/open-files.sh)
ENTRYPOINT ["sh", "/app/config/deploy/open-files.sh"]
# backlog: connections waiting to be accepted (Twisted's default of 50 reset 1,000 clients arriving
# at once); the kernel caps it at net.core.somaxconn (docker-compose.yml sets that to 4096)
CMD ["sh", "-c", "python manage.py migrate --noinput && exec daphne -e tcp:port=8000:interface=0.0.0.0:backlog=2048 config.asgi:application"]

# The proxy: the official nginx image (>= 1.27.3: `resolve` finds every replica of `web` and follows
# them as they come and go) with this image's static files and the repository's template, which the
# image's entrypoint renders (envsubst of the DEATHMATCH_ variables docker-compose.yml sets).
FROM nginx:1.29-alpine AS proxy
COPY --from=app /app/staticfiles /srv/static
COPY config/nginx/deathmatch.conf.template /etc/nginx/templates/default.conf.template
# a websocket holds two connections here (the browser's and web's): the image's 1,024 a worker
# would cap a worker at ~500 pages.  The grep fails the build when the sed matched nothing (an
# image whose nginx.conf spells it otherwise) instead of shipping the 1,024 silently.
RUN sed -i -e 's/^\( *\)worker_connections  *[0-9]*;/\1worker_connections 16384;/' /etc/nginx/nginx.conf \
 && { grep -q '^ *worker_connections 16384;' /etc/nginx/nginx.conf \
      || { echo "Dockerfile: no worker_connections line in /etc/nginx/nginx.conf to raise" >&2; exit 1; }; }
# nginx's workers inherit the open-files limit: raised before the image's own entrypoint, up to what
# the host allows, and logged (config/deploy/open-files.sh; no worker_rlimit_nofile, whose setrlimit
# of a hard limit fails where the engine may not raise it)
COPY config/deploy/open-files.sh /usr/local/bin/deathmatch-open-files
ENTRYPOINT ["sh", "/usr/local/bin/deathmatch-open-files", "/docker-entrypoint.sh"]
# a new ENTRYPOINT drops the base image's CMD: the official image's, again
CMD ["nginx", "-g", "daemon off;"]

# `docker build .` without a target: the web image
FROM app
