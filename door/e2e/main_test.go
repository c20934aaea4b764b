// Package e2e measures the door as a client does: the real mur binary
// serving on loopback, beside a bare net/http JSON-RPC server in a process
// of its own, driven by one load generator (BENCHMARKS.md "Door, cross-process").
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// mur is the real binary, built once by TestMain.
var mur string

// bareEnv, set in a re-exec of this test binary, makes it the bare server:
// it names a file holding the JSON-RPC result to answer every call with.
const bareEnv = "MUR_DOOR_E2E_BARE_RESULT"

func TestMain(m *testing.M) {
	if path := os.Getenv(bareEnv); path != "" {
		os.Exit(serveBare(path))
	}
	os.Exit(testmur.Run(m, testmur.Mur, &mur))
}

// serveBare is the bare handler as a process: decode the JSON-RPC envelope
// and its params, encode the answer with the given result, on a loopback
// port it prints as its first stdout line.
func serveBare(path string) int {
	result, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("http://" + ln.Addr().String())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var params map[string]any
		_ = json.Unmarshal(req.Params, &params)
		var buf bytes.Buffer
		_ = json.NewEncoder(&buf).Encode(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", req.ID, result})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(buf.Bytes())
	})
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
