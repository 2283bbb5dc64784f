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

package berthtest_test

import (
	"context"
	"fmt"
	"log"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// Example starts Berth against envtest, serves the default profile under the
// name default-scheduler and waits for a pod to be bound. docs/testing.md
// has a complete test.
func Example() {
	ctx := context.Background()
	env, err := berthtest.Start(ctx) // needs $KUBEBUILDER_ASSETS
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			log.Print(err)
		}
	}()

	if _, err := env.CreateNode(ctx, berthtest.NewNode("node-a").Obj()); err != nil {
		log.Fatal(err)
	}
	// An empty spec is upstream's default profile.
	profile := &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "default-scheduler"}}
	if err := env.Client.Create(ctx, profile); err != nil {
		log.Fatal(err)
	}
	if _, err := env.WaitForProfileReady(ctx, profile.Name); err != nil {
		log.Fatal(err)
	}
	pod := berthtest.NewPod("default", "web").Obj()
	if _, err := env.Clientset.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	bound, err := env.WaitForPodBound(ctx, "default", "web")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bound.Spec.NodeName)
}
