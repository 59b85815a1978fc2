# GENERATED from k8s/ by `npm run gen:chart`. Do not edit by hand: edit k8s/ and regenerate
# (a test fails if this chart is stale).
{{- define "podset.apiServerCIDRs" -}}
{{- $cidrs := .Values.apiServerCIDRs | default list -}}
{{- if empty $cidrs -}}
{{- $ips := list -}}
{{- $endpoints := lookup "v1" "Endpoints" "default" "kubernetes" -}}
{{- range $subset := dig "subsets" list $endpoints -}}
{{- range $address := dig "addresses" list $subset -}}
{{- $ips = append $ips (dig "ip" "" $address) -}}
{{- end -}}
{{- end -}}
{{- range $ip := without (uniq $ips) "" -}}
{{- $cidrs = append $cidrs (printf "%s/%s" $ip (ternary "128" "32" (contains ":" $ip))) -}}
{{- end -}}
{{- end -}}
{{- toJson $cidrs -}}
{{- end -}}
{{- define "podset.apiServerEgress" -}}
{{- if empty (include "podset.apiServerCIDRs" . | fromJsonArray) -}}port-only{{- else -}}confined{{- end -}}
{{- end -}}
{{- define "podset.redisMaxmemory" -}}
{{- $limit := toString ((.Values.redis.resources).limits).memory -}}
{{- if not (regexMatch "^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$" $limit) -}}
{{- fail (printf "redis.resources.limits.memory: %q is not a whole memory quantity such as 1Gi or 512Mi; Redis's maxmemory (3/4 of it) is derived from it" $limit) -}}
{{- end -}}
{{- $number := regexFind "^[0-9]+" $limit -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $bytes := div (mul (atoi $number) (get $units (trimPrefix $number $limit)) 3) 4 -}}
{{- if lt $bytes 33554432 -}}
{{- fail (printf "redis.resources.limits.memory: %q leaves Redis a maxmemory under 32mb" $limit) -}}
{{- end -}}
{{- if eq (mod $bytes 1048576) 0 -}}{{ div $bytes 1048576 }}mb{{- else -}}{{ $bytes }}{{- end -}}
{{- end -}}
