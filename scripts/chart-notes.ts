// The chart's templates/NOTES.txt, which helm prints after install and upgrade: the next steps (the
// dashboard's token and how to reach it, where the PodSets are), whether the apps' egress to the API
// server is confined to its addresses or limited by port only (and how to confine it), where the docs are.
// Made by scripts/gen-chart.ts; the helpers it includes are in its _helpers.tpl.

export function chartNotes(): string {
  return [
    '{{- /* GENERATED from k8s/ by `npm run gen:chart` (scripts/chart-notes.ts). Do not edit by hand. */ -}}',
    '{{- $ns := .Release.Namespace }}',
    '{{- $cidrs := include "podset.apiServerCIDRs" . | fromJsonArray }}',
    'podset-operator {{ .Chart.AppVersion }} is {{ if .Release.IsUpgrade }}upgraded{{ else }}installed{{ end }}: release {{ .Release.Name }} in the namespace {{ $ns }}.',
    '',
    '1. The dashboard asks for a token, from the Secret podset-dashboard (key token), which the release',
    '   does not make. Create it once, then read it back when you need it:',
    '     kubectl -n {{ $ns }} create secret generic podset-dashboard --from-literal=token=$(openssl rand -hex 16)',
    "     kubectl -n {{ $ns }} get secret podset-dashboard -o jsonpath='{.data.token}' | base64 -d",
    '   Reach it through a port-forward (or an Ingress to the Service podset-dashboard, port 8082):',
    '     kubectl -n {{ $ns }} port-forward svc/podset-dashboard 8082',
    '     and open http://localhost:8082',
    '',
    '2. PodSets{{ with .Values.watchNamespaces }} (this release reconciles those of {{ join ", " . }}){{ end }}:',
    '     kubectl get podsets -A',
    '',
    // Trimmed after, not before: the blank line above stays.
    '{{ if empty $cidrs -}}',
    '3. WARNING: egress to the API server is limited by PORT ONLY (TCP 443 and 6443 to any address): no',
    '   API server address was known at this render (apiServerCIDRs is empty and the cluster lookup found',
    '   none). The NetworkPolicy podset-api-server-egress carries the annotation',
    '   podset.io/api-server-egress=port-only, and the apps say so at start. To confine it, find the',
    '   addresses and set them:',
    "     kubectl get endpoints kubernetes -n default -o jsonpath='{.subsets[*].addresses[*].ip}'",
    "     helm upgrade {{ .Release.Name }} <chart> -n {{ $ns }} --reuse-values --set 'apiServerCIDRs={IP/32,...}'",
    '{{- else -}}',
    '3. Egress to the API server is confined to {{ join ", " $cidrs }} (TCP 443 and 6443; the',
    '   NetworkPolicy podset-api-server-egress, annotated podset.io/api-server-egress=confined).',
    '{{- if empty .Values.apiServerCIDRs }}',
    '   They were looked up in the cluster: run helm upgrade again if the control plane moves.',
    '{{- else }}',
    '   They are your apiServerCIDRs: set them again if the control plane moves.',
    '{{- end }}',
    '{{- end }}',
    '',
    '4. Docs: docs/install.md in the podset-operator source (#with-helm, #network-policy), and',
    '   docs/uninstall.md before helm uninstall (delete the PodSets first).',
    '',
  ].join('\n');
}
