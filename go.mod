module github.com/murmur-go/mur

go 1.26.0

require github.com/golang-jwt/jwt/v5 v5.3.1

require (
	github.com/go-chi/chi/v5 v5.5.0 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.3 // indirect
	golang.org/x/text v0.42.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
