package kubetest

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	cacheddiscovery "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/controller-manager/pkg/informerfactory"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
)

// cluster is a real kube-apiserver over an embedded etcd, with the
// garbage-collector controller running in process.
type cluster struct {
	client *kubernetes.Clientset
	server *kubeapiservertesting.TestServer
}

// startEtcd runs an embedded etcd on loopback ports of its own and returns its
// client URL; the test's cleanup stops it.
func startEtcd(t *testing.T) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(t.TempDir(), "etcd")
	cfg.LogLevel = "error"
	client, _ := url.Parse("http://127.0.0.1:0")
	peer, _ := url.Parse("http://127.0.0.1:0")
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("embedded etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("embedded etcd not ready within 60s")
	}
	return "http://" + e.Clients[0].Addr().String()
}

// startCluster starts the API server with RBAC authorization and the
// garbage collector; both end with the test.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("a real API server: not in -short")
	}
	storage := storagebackend.NewDefaultConfig("/registry-"+t.Name(), nil)
	storage.Transport.ServerList = []string{startEtcd(t)}
	srv := kubeapiservertesting.StartTestServerOrDie(t, nil, []string{
		"--authorization-mode=RBAC",
		"--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
	}, storage)
	t.Cleanup(srv.TearDownFn)
	cs, err := kubernetes.NewForConfig(srv.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 3)
	t.Cleanup(func() {
		cancel()
		for range 3 {
			<-done
		}
	})
	md, err := metadata.NewForConfig(srv.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	disc := cacheddiscovery.NewMemCacheClient(cs.Discovery())
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(disc)
	mapper.Reset()
	shared := informers.NewSharedInformerFactory(cs, 0)
	mdInf := metadatainformer.NewSharedInformerFactory(md, 0)
	started := make(chan struct{})
	close(started)
	gc, err := garbagecollector.NewGarbageCollector(ctx, cs, md, mapper,
		garbagecollector.DefaultIgnoredResources(),
		informerfactory.NewInformerFactory(shared, mdInf), started)
	if err != nil {
		t.Fatal(err)
	}
	const sync = time.Second
	go func() { defer func() { done <- struct{}{} }(); wait.Until(mapper.Reset, sync, ctx.Done()) }()
	go func() { defer func() { done <- struct{}{} }(); gc.Run(ctx, 2, sync) }()
	go func() { defer func() { done <- struct{}{} }(); gc.Sync(ctx, cs.Discovery(), sync) }()
	return &cluster{client: cs, server: srv}
}

func TestAPIServerStarts(t *testing.T) {
	c := startCluster(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "mur-smoke"}}
	if _, err := c.client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
