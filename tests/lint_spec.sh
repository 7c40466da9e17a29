#!/bin/sh
# lint_spec.sh: lints api-spec/openapi.yaml with Redocly CLI, using the rules
# of api-spec/redocly.yaml.  Run by `make lint-spec` (and `make test`) from
# any directory.
#
# Needs npm only to install Redocly CLI, once, into build/npm (pinned version
# below); without npm on PATH it says so and succeeds without linting.  The
# lint itself runs offline: telemetry and update checks are turned off.
# Exits with the lint's status (non-zero when the spec has errors).

REDOCLY_VERSION=2.77.0

cd "$(dirname "$0")/.." || exit 1

if ! command -v npm >/dev/null 2>&1; then
    echo "lint-spec: npm not found; the OpenAPI spec was not linted"
    exit 0
fi

PREFIX=build/npm
REDOCLY=$PREFIX/node_modules/.bin/redocly
PKG_JSON=$PREFIX/node_modules/@redocly/cli/package.json

installed=
if [ -f "$PKG_JSON" ] && [ -x "$REDOCLY" ]; then
    installed=$(node -p "require('./$PKG_JSON').version" 2>/dev/null)
fi

if [ "$installed" != "$REDOCLY_VERSION" ]; then
    echo "lint-spec: installing @redocly/cli@$REDOCLY_VERSION into $PREFIX"
    mkdir -p "$PREFIX" || exit 1
    if ! npm install --prefix "$PREFIX" --no-audit --no-fund \
            --no-update-notifier --loglevel=error \
            "@redocly/cli@$REDOCLY_VERSION" >"$PREFIX/install.log" 2>&1; then
        tail -n 20 "$PREFIX/install.log" >&2
        # The linter cannot be had (no registry, say): like having no npm.
        echo "lint-spec: npm could not install @redocly/cli@$REDOCLY_VERSION;" \
            "the OpenAPI spec was NOT linted" >&2
        exit 0
    fi
fi

# No telemetry, no update or announcement checks: nothing but the lint.
REDOCLY_TELEMETRY=off
REDOCLY_SUPPRESS_UPDATE_NOTICE=true
REDOCLY_SUPPRESS_NOTIFICATIONS=true
NO_UPDATE_NOTIFIER=1
export REDOCLY_TELEMETRY REDOCLY_SUPPRESS_UPDATE_NOTICE \
    REDOCLY_SUPPRESS_NOTIFICATIONS NO_UPDATE_NOTIFIER

"$REDOCLY" lint --config api-spec/redocly.yaml api-spec/openapi.yaml
