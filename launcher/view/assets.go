package view

import (
	"embed"
	"io/fs"
)

// The page: plain HTML, CSS and JavaScript, embedded in the binary; nothing
// is fetched from anywhere else at run time.
//
//go:embed assets/index.html assets/view.css assets/view.js
var assets embed.FS

func assetFS() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("view: embedded assets: " + err.Error()) // programmer error: the directory is embedded above
	}
	return sub
}
