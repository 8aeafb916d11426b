module lifeloop-callback.dev/ndjson-echo

go 1.22
