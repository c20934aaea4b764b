package formation

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/wire"
)

const hint046 = "\n  hint: launch the formation with mur run --roster, or unset these variables to run this capsule on its own\n"

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

type launch struct {
	id   string
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func newLaunch(t *testing.T) *launch {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &launch{id: a2a.NewID(a2a.PrefixFormation), pub: pub, priv: priv}
}

func (l *launch) token(t *testing.T, c credential.Claims) string {
	t.Helper()
	tok, err := credential.Mint(l.priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// line is a credentials line for member "lead" calling "worker".
func (l *launch) line(t *testing.T) wire.Credentials {
	return wire.Credentials{Type: "credentials", FormationID: l.id, Member: "lead",
		VerifyKey: base64.RawURLEncoding.EncodeToString(l.pub),
		Launcher:  &Launcher{PID: 4242, ProcessStart: "777"}, Callees: []string{"worker"},
		Tokens: map[string]string{"worker": l.token(t, credential.MemberClaims(l.id, "lead", "worker"))}}
}

func write(t *testing.T, w *os.File, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

var short = waits{firstLine: 200 * time.Millisecond, address: 200 * time.Millisecond}

// TestJoinRefusals pins E-RUN-044 and E-RUN-046's exact texts (CHAN-4, LIFE-8, CHAN-5).
func TestJoinRefusals(t *testing.T) {
	l := newLaunch(t)
	regular, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	_, wEnd := testmur.Pipe(t)
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	chanText := func(why string) string {
		return "error[E-RUN-046]: MURMUR_FORMATION_CHANNEL does not carry this member's formation credentials: " + why +
			"; a member that cannot read what its launcher handed it could neither prove who it is nor call anyone, so the launch is refused" + hint046
	}
	lifeText := func(why string) string {
		return "error[E-RUN-046]: MURMUR_FORMATION_LIFELINE does not carry this member's formation lifeline: " + why +
			"; a member that cannot hear its lifeline would keep running after its formation ends, so the launch is refused" + hint046
	}
	idText := func(why string) string {
		return "error[E-RUN-044]: MURMUR_FORMATION_ID does not carry a formation id: " + why +
			"; a session that cannot tell which formation it belongs to would be grouped with the wrong one, so the launch is refused\n  hint: unset MURMUR_FORMATION_ID to run this capsule on its own\n"
	}
	// fd hands f over as an inherited descriptor would arrive: a dup, without
	// FD_CLOEXEC; f's own descriptor is close-on-exec, as Go opens every one.
	fd := func(f *os.File) string {
		n, err := syscall.Dup(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(n) })
		return strconv.Itoa(n)
	}
	dirFD, regularFD, wEndFD := fd(dir), fd(regular), fd(wEnd)
	own := strconv.Itoa(int(regular.Fd())) // opened by this process, never handed over
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"CHAN-5 peers", map[string]string{EnvPeers: "a=b"},
			"error[E-RUN-046]: MURMUR_FORMATION_PEERS cannot be used: it is set in this process's environment, so the launch is refused" + hint046},
		{"CHAN-4 channel without id", map[string]string{EnvChannel: "3"}, chanText("MURMUR_FORMATION_ID is not set")},
		{"LIFE-8 lifeline without id", map[string]string{EnvLifeline: "4"}, lifeText("MURMUR_FORMATION_ID is not set")},
		{"E-RUN-044 prefix", map[string]string{EnvID: "ses_0123"}, idText("it does not start with 'frm_'")},
		{"E-RUN-044 digits", map[string]string{EnvID: "frm_0123"}, idText("it has 4 hex digits, not 32")},
		{"E-RUN-044 case", map[string]string{EnvID: "frm_0123456789ABCDEF0123456789abcdef"}, idText("it holds a character outside lowercase hex")},
		{"CHAN-4 not a number", map[string]string{EnvID: l.id, EnvChannel: "three"}, chanText("'three' is not a descriptor number")},
		{"CHAN-4 standard stream", map[string]string{EnvID: l.id, EnvChannel: "1"}, chanText("descriptor 1 is a standard stream")},
		{"CHAN-4 not open", map[string]string{EnvID: l.id, EnvChannel: "987"}, chanText("descriptor 987 is not open")},
		{"CHAN-4 directory", map[string]string{EnvID: l.id, EnvChannel: dirFD}, chanText("descriptor " + dirFD + " is a directory")},
		{"CHAN-4 not handed over", map[string]string{EnvID: l.id, EnvChannel: own}, chanText("descriptor " + own + " is not open")},
		{"LIFE-8 not handed over", map[string]string{EnvID: l.id, EnvLifeline: own}, lifeText("descriptor " + own + " is not open")},
		{"LIFE-8 regular file", map[string]string{EnvID: l.id, EnvLifeline: regularFD}, lifeText("descriptor " + regularFD + " is a regular file")},
		{"LIFE-8 write end", map[string]string{EnvID: l.id, EnvLifeline: wEndFD}, lifeText("descriptor " + wEndFD + " is open for writing")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := join(context.Background(), env(tt.vars), short)
			d, ok := diag.As(err)
			if !ok || m != nil {
				t.Fatalf("Join = %v, %v; want a diagnostic", m, err)
			}
			if got := d.Render(); got != tt.want {
				t.Errorf("Join =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestJoinFirstLine covers CHAN-4's first-line refusals.
func TestJoinFirstLine(t *testing.T) {
	l, other := newLaunch(t), newLaunch(t)
	tests := []struct {
		name string
		feed func(t *testing.T, w *os.File)
		why  string
	}{
		{"nothing within the wait", func(*testing.T, *os.File) {}, "no first line arrived within 200ms"},
		{"closed empty", func(_ *testing.T, w *os.File) { w.Close() }, "it closed before a first line arrived"},
		{"not JSON", func(t *testing.T, w *os.File) { w.WriteString("hello\n") },
			"its first line is not a credentials object: invalid character 'h' looking for beginning of value"},
		{"another formation", func(t *testing.T, w *os.File) {
			c := other.line(t)
			write(t, w, c)
		}, "its first line names another formation than MURMUR_FORMATION_ID"},
		{"wrong type", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Type = "addresses"
			write(t, w, c)
		}, "its first line is not a valid credentials object: its type is 'addresses', not 'credentials'"},
		{"token of another key", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Tokens["worker"] = other.token(t, credential.MemberClaims(l.id, "lead", "worker"))
			write(t, w, c)
		}, "its token for 'worker' was not issued by formation " + l.id + " to 'lead' for 'worker'"},
		{"token for another member", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Tokens["worker"] = l.token(t, credential.MemberClaims(l.id, "coder", "worker"))
			write(t, w, c)
		}, "its token for 'worker' was not issued by formation " + l.id + " to 'lead' for 'worker'"},
		{"token for another callee", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Tokens["worker"] = l.token(t, credential.MemberClaims(l.id, "lead", "coder"))
			write(t, w, c)
		}, "its token for 'worker' was not issued by formation " + l.id + " to 'lead' for 'worker'"},
		{"unknown cancel", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Cancel = "always"
			write(t, w, c)
		}, "its first line is not a valid credentials object: cancel is 'always', not 'cascade'"},
		{"launcher token", func(t *testing.T, w *os.File) {
			c := l.line(t)
			c.Tokens["worker"] = l.token(t, credential.LauncherClaims(l.id, []string{"worker"}))
			write(t, w, c)
		}, "its token for 'worker' was not issued by formation " + l.id + " to 'lead' for 'worker'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd, w := testmur.Pipe(t)
			tt.feed(t, w)
			m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvChannel: strconv.Itoa(fd)}), short)
			if m != nil {
				t.Fatal("Join admitted the member")
			}
			want := diag.RunChannelBad(tt.why).Msg
			if d, ok := diag.As(err); !ok || d.Msg != want {
				t.Errorf("Join = %v\nwant %q", err, want)
			}
		})
	}
}

// TestJoinMember covers a launcher-started member: credentials, address
// lookup (CHAN-3, CHAN-5) and the lifeline (LIFE-1).
func TestJoinMember(t *testing.T) {
	l := newLaunch(t)
	chFD, chW := testmur.Pipe(t)
	lifeFD, lifeW := testmur.Pipe(t)
	write(t, chW, l.line(t))
	m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvChannel: strconv.Itoa(chFD), EnvLifeline: strconv.Itoa(lifeFD)}), short)
	if err != nil {
		t.Fatalf("Join = %v", err)
	}
	defer m.Close()
	if !m.Launched() || m.Name != "lead" || !m.Lifeline || len(m.Warnings) != 0 ||
		m.Launcher != (Launcher{PID: 4242, ProcessStart: "777"}) || !m.PublicKey.Equal(l.pub) || len(m.Callees) != 1 {
		t.Fatalf("Member = %+v", m)
	}
	ctx := context.Background()
	if _, err := m.Lookup(ctx, "coder"); !errors.Is(err, ErrNotCallee) {
		t.Errorf("Lookup(coder) = %v, want ErrNotCallee", err)
	}
	if _, err := m.lookup(ctx, "worker", 50*time.Millisecond); err == nil || err.Error() != "worker's door address did not arrive within 50ms" {
		t.Errorf("Lookup before the address line = %v", err)
	}
	got := make(chan Callee, 1) // one lookup, one result
	go func() {
		c, err := m.lookup(ctx, "worker", time.Hour)
		if err != nil {
			t.Error(err)
		}
		got <- c
	}()
	write(t, chW, map[string]string{"type": "future-kind"}) // ignored
	write(t, chW, wire.Addresses{Type: "addresses", Callees: []Address{
		{Name: "worker", URL: "http://127.0.0.1:4000", SessionID: "ses_01"},
		{Name: "stranger", URL: "http://127.0.0.1:4001", SessionID: "ses_02"},
	}})
	c := <-got
	if c.URL != "http://127.0.0.1:4000" || c.SessionID != "ses_01" {
		t.Errorf("Lookup = %+v", c)
	}
	claims, err := credential.Verify(l.pub, l.id, string(c.Token))
	if err != nil || claims.Subject != "lead" || !claims.Names(l.id, "worker") {
		t.Errorf("token claims = %+v, %v", claims, err)
	}
	select {
	case <-m.Ended():
		t.Fatal("Ended before the lifeline closed")
	default:
	}
	lifeW.WriteString("stray bytes are discarded")
	lifeW.Close()
	<-m.Ended()
	if m.EndedAt().IsZero() {
		t.Error("EndedAt is zero after EOF")
	}
	if m.Orderly() {
		t.Error("Orderly after an EOF without OrderlyEnd: a launcher that died")
	}
}

// TestLifelineOrderlyEnd: OrderlyEnd before EOF marks the end as the
// launcher's own, so the member winds down without the alarm line.
func TestLifelineOrderlyEnd(t *testing.T) {
	l := newLaunch(t)
	chFD, chW := testmur.Pipe(t)
	lifeFD, lifeW := testmur.Pipe(t)
	write(t, chW, l.line(t))
	m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvChannel: strconv.Itoa(chFD), EnvLifeline: strconv.Itoa(lifeFD)}), short)
	if err != nil {
		t.Fatalf("Join = %v", err)
	}
	defer m.Close()
	if m.Orderly() {
		t.Fatal("Orderly before the lifeline closed")
	}
	lifeW.WriteString(wire.OrderlyEnd)
	lifeW.Close()
	<-m.Ended()
	if !m.Orderly() {
		t.Error("Orderly = false after OrderlyEnd and EOF")
	}
}

// TestJoinHandStarted: an id but no channel or lifeline runs with W-RUN-007
// (LIFE-7) and no credentials.
func TestJoinHandStarted(t *testing.T) {
	l := newLaunch(t)
	m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvLifeline: "  "}), short)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Launched() || m.Lifeline || m.Ended() != nil || len(m.Warnings) != 1 {
		t.Fatalf("Member = %+v", m)
	}
	want := "warning[W-RUN-007]: this session is a member of formation " + l.id + " but was handed no lifeline, so it will not wind down when that formation ends; end it with `mur stop`\n"
	if got := m.Warnings[0].Render(); got != want {
		t.Errorf("warning = %q, want %q", got, want)
	}
	if m, err := join(context.Background(), env(nil), short); m != nil || err != nil {
		t.Errorf("Join outside a formation = %v, %v", m, err)
	}
}

func TestCloseStopsReaders(t *testing.T) {
	l := newLaunch(t)
	chFD, chW := testmur.Pipe(t)
	lifeFD, _ := testmur.Pipe(t)
	write(t, chW, l.line(t))
	m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvChannel: strconv.Itoa(chFD), EnvLifeline: strconv.Itoa(lifeFD)}), short)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Ended():
		t.Error("Close closed Ended")
	default:
	}
}

// TestArmExitTimer: 20 s after the lifeline closed the member exits 143 (LIFE-4).
func TestArmExitTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &Member{endedAt: time.Now()}
		code := make(chan int, 1) // the timer fires once
		m.ArmExitTimer(func(c int) { code <- c })
		time.Sleep(ExitGrace - time.Millisecond)
		synctest.Wait()
		select {
		case c := <-code:
			t.Fatalf("exited %d before ExitGrace", c)
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if c := <-code; c != 143 {
			t.Errorf("exit code = %d, want 143", c)
		}
	})
}

func TestTexts(t *testing.T) {
	if got := (&AddressError{Member: "worker", Wait: AddressWait}).Error(); got != "worker's door address did not arrive within 10s" {
		t.Errorf("CHAN-5 text = %q", got)
	}
	if got := waitText(FirstLineWait); got != "10s" {
		t.Errorf("waitText = %q", got)
	}
	if LifelineClosedNotice != "[capsule-runtime] formation lifeline closed — the formation has ended; cancelling live tasks and ending the session" {
		t.Error("LIFE-3 text changed")
	}
}

// TestJoinCascade: the first line's "cancel": "cascade"
// reaches the member as Cascade; without it the member never cascades.
func TestJoinCascade(t *testing.T) {
	l := newLaunch(t)
	for _, cancel := range []string{"", "cascade"} {
		fd, w := testmur.Pipe(t)
		c := l.line(t)
		c.Cancel = cancel
		write(t, w, c)
		m, err := join(context.Background(), env(map[string]string{EnvID: l.id, EnvChannel: strconv.Itoa(fd)}), short)
		if err != nil {
			t.Fatalf("Join(cancel %q) = %v", cancel, err)
		}
		if m.Cascade != (cancel == "cascade") {
			t.Errorf("Join(cancel %q).Cascade = %v", cancel, m.Cascade)
		}
		m.Close()
	}
}
