module lifeloop-callback.dev/bench-go

go 1.22

require lifeloop-callback.dev/lifeloop v0.0.0

replace lifeloop-callback.dev/lifeloop => ../../../../sdk/go
