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

package imagelocality

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	pl, _ := pluginFor(node("n", img(100, "app:v1")))
	signtest.Pairs(t, pl, []string{framework.ImageNamesSignKey}, []signtest.Pair{
		{Name: "another name", A: st.Pod("a").Images("app:v1").Obj(), B: st.Pod("b").Images("app:v1").Obj(), Same: true},
		{Name: "labels and volumes", A: st.Pod("p").Images("app:v1").Obj(), B: st.Pod("p").Labels("app", "x").PVC("data").Images("app:v1").Obj(), Same: true},
		{Name: "the implicit latest tag", A: st.Pod("p").Images("app").Obj(), B: st.Pod("p").Images("app:latest").Obj(), Same: true},
		{Name: "a registry port, no tag", A: st.Pod("p").Images("reg:5000/app").Obj(), B: st.Pod("p").Images("reg:5000/app:latest").Obj(), Same: true},
		{Name: "images in another order", A: st.Pod("p").Images("app:v1", "log:v2").Obj(), B: st.Pod("p").Images("log:v2", "app:v1").Obj(), Same: true},
		{Name: "an init container's image", A: st.Pod("p").Images("app:v1", "init:v1").Obj(), B: st.Pod("p").InitImages("init:v1").Images("app:v1").Obj(), Same: true},
		{Name: "an image repeated", A: st.Pod("p").Images("app:v1").Obj(), B: st.Pod("p").Images("app:v1").InitImages("app:v1").Obj(), Same: true},
		{Name: "another tag", A: st.Pod("p").Images("app:v1").Obj(), B: st.Pod("p").Images("app:v2").Obj(), Same: false},
		{Name: "one more image", A: st.Pod("p").Images("app:v1").Obj(), B: st.Pod("p").Images("app:v1", "log:v2").Obj(), Same: false},
		// As upstream, image volumes are not signed here; the volume plugins sign them.
		{Name: "an image volume", A: st.Pod("p").Images("app:v1").Obj(),
			B: st.Pod("p").Images("app:v1").Volumes(v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "data:v1"}}).Obj(), Same: true},
	})
}
