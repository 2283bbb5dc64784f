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

package localcluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finishControlPlaneOnly does what the controller manager would have done
// for pods to be admitted (the default ServiceAccount), then installs the CRDs.
func (c *Cluster) finishControlPlaneOnly(ctx context.Context) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: metav1.NamespaceDefault}}
	if err := c.waitFor(ctx, "the default ServiceAccount to be created", nil, func(ctx context.Context) (bool, error) {
		_, err := c.Clientset.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Create(ctx, sa, metav1.CreateOptions{FieldManager: FieldManager})
		return err == nil || apierrors.IsAlreadyExists(err), nil
	}); err != nil {
		return fmt.Errorf("creating the default ServiceAccount: %w", err)
	}
	if err := c.installCRDs(ctx, true); err != nil {
		return err
	}
	c.logger.Info("Local control plane is up (etcd and kube-apiserver only)", "kubeconfig", c.Kubeconfig)
	return nil
}
