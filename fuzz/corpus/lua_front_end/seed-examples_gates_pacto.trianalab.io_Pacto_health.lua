-- Pacto contract gate for Argo CD (pacto.trianalab.io/v1alpha1, kind Pacto).
-- argocd-cm key: resource.customizations.health.pacto.trianalab.io_Pacto
-- Argo CD runs custom scripts without the string and math libraries, so this
-- script uses only `..`, comparisons, ipairs and tostring.

-- The one knob: "Healthy" lets contract warnings pass, "Degraded" blocks them.
local onWarning = "Healthy"

local function verdict(status, message)
  return { status = status, message = message }
end

local st = obj.status
if st == nil or st.contractStatus == nil then
  return verdict("Progressing", "waiting for the first contract evaluation")
end
if st.observedGeneration ~= obj.metadata.generation then
  return verdict("Progressing", "contract not yet evaluated at this generation")
end

local result = st.contractStatus
if result == "Compliant" or result == "Reference" then
  return verdict("Healthy", "contract satisfied")
elseif result == "Warning" then
  return verdict(onWarning, "contract satisfied with warnings")
elseif result == "Invalid" then
  return verdict("Degraded", "contract is invalid and could not be evaluated")
elseif result == "NonCompliant" then
  for _, finding in ipairs(st.findings or {}) do
    if finding.severity == "error" then
      return verdict("Degraded", "contract violated: " .. tostring(finding.code) .. ": " .. tostring(finding.message))
    end
  end
  return verdict("Degraded", "contract violated")
end

-- Unknown, NotEvaluated and any value added later hold the rollout as
-- Progressing: Argo ranks Unknown worse than Degraded.
return verdict("Progressing", "contract verdict pending: " .. tostring(result))
