-- CoderTemplateTest gate for Argo CD (coder.com/v1alpha1, kind CoderTemplateTest).
-- argocd-cm key: resource.customizations.health.coder.com_CoderTemplateTest
local health = { status = "Progressing", message = "Waiting for the controller" }

if obj.metadata.deletionTimestamp ~= nil then
  -- Argo CD versions with deletion messages show deletionMessage; others
  -- short-circuit to "Pending deletion" before this script runs.
  health.deletionMessage = "Deleting the test workspace"
  health.message = health.deletionMessage
  return health
end

local st = obj.status
if st == nil or st.observedGeneration == nil or st.observedGeneration ~= obj.metadata.generation then
  return health
end
if st.reason ~= nil and st.message ~= nil then
  health.message = st.reason .. ": " .. st.message
end

if st.phase == "Failed" then
  health.status = "Degraded"
elseif st.phase == "Succeeded" then
  for _, condition in ipairs(st.conditions or {}) do
    if condition.type == "Ready" and condition.status == "True" then
      health.status = "Healthy"
    end
  end
end
return health
