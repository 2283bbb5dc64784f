/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command berth is Berth's single binary: the manager that runs the
// scheduler, the controllers and the webhook (`berth manager`), the
// migration tool (`berth convert`), the offline check of Berth's objects
// (`berth validate`), the explanation of a pod's placement (`berth
// explain`), the check of a cluster's placements (`berth audit`) and
// `berth version`. It is built with the public builder,
// cmd/berth/app, as a binary with plugins of one's own is.
package main

import "github.com/berth-io/berth/cmd/berth/app"

// gitVersion and gitCommit are Berth's version and commit, set at build
// time with -ldflags "-X main.gitVersion=v0.2.0 -X main.gitCommit=<sha>"
// (hack/release.sh, the Dockerfile); they fall back to the module version
// and the revision the Go build stamped.
var gitVersion, gitCommit = "", ""

func main() {
	app.Main(app.WithVersion(gitVersion), app.WithCommit(gitCommit))
}
