import { AuditSection } from './admin/AuditSection.tsx';
import { MarginsSection } from './admin/MarginsSection.tsx';
import { PricesSection } from './admin/PricesSection.tsx';
import { ProvidersSection } from './admin/ProvidersSection.tsx';
import { RoutesSection } from './admin/RoutesSection.tsx';
import { Page } from '../components/common.tsx';
import { Link } from '../router.tsx';

/** For administrators: upstream providers and keys, routes and prices, changed live without a restart. */
export function UpstreamsPage() {
  return (
    <Page title="Upstreams, routes and prices" lead="Changes apply to every process within seconds; requests already running finish as they started.">
      <p>
        <Link to="/admin">Back to administration</Link>
      </p>
      <ProvidersSection />
      <RoutesSection />
      <PricesSection />
      <MarginsSection />
      <AuditSection />
    </Page>
  );
}
