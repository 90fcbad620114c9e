<?php
/**
 * The "Re-index" page (menu slug `rtac-reindex`): a progress bar driving
 * POST /wp-json/rtac/v1/reindex twenty posts at a time, so no single request
 * runs into PHP's time limit on a large site.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin_Reindex {

	private Rtac_Settings $settings;
	private Rtac_Reindexer $reindexer;
	private Rtac_Sync_Queue $queue;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, Rtac_Reindexer $reindexer, Rtac_Sync_Queue $queue, ?Rtac_Client $client = null ) {
		$this->settings  = $settings;
		$this->reindexer = $reindexer;
		$this->queue     = $queue;
		$this->client    = $client;
	}

	/**
	 * Chunks the sidecar has not embedded yet (`pending_embeddings` of GET /v1/stats),
	 * or null when it cannot say. Asked on every view, never cached: it falls as the
	 * sidecar works through a re-index.
	 */
	private function pending_embeddings(): ?int {
		$client = $this->client ?? Rtac_Client::from_settings( $this->settings );
		$stats  = $client->request( 'GET', '/v1/stats', null, array( 'timeout' => 5 ) );
		if ( null !== $stats['error'] || ! is_array( $stats['body'] ) || ! isset( $stats['body']['pending_embeddings'] ) ) {
			return null;
		}
		return max( 0, (int) $stats['body']['pending_embeddings'] );
	}

	public function enqueue(): void {
		wp_enqueue_script( 'rtac-admin-reindex', plugins_url( 'assets/admin-reindex.js', RTAC_FILE ), array(), RTAC_VERSION, true );
		$config = array(
			'url'     => rest_url( Rtac_Rest::NS . '/reindex' ),
			'nonce'   => wp_create_nonce( 'wp_rest' ),
			'batch'   => Rtac_Reindexer::BATCH,
			'strings' => array(
				/* translators: 1: posts processed, 2: total posts. */
				'progress' => __( '%1$d of %2$d posts sent…', 'rtac' ),
				/* translators: %d: number of documents sent. */
				'done'     => __( 'Done: %d documents sent.', 'rtac' ),
				'failed'   => __( 'Re-indexing stopped:', 'rtac' ),
				'retry'    => __( 'Try again', 'rtac' ),
			),
		);
		wp_add_inline_script( 'rtac-admin-reindex', 'window.rtacReindex = ' . wp_json_encode( $config, JSON_HEX_TAG | JSON_HEX_AMP ) . ';', 'before' );
	}

	public function render(): void {
		Rtac_Capability::require_manage();
		echo '<div class="wrap rtac-reindex"><h1>' . esc_html__( 'Re-index content', 'rtac' ) . '</h1>';
		Rtac_Admin::render_notice();
		echo '<p>' . esc_html__( 'Published posts, pages, products and knowledge-base entries are sent to the assistant automatically when they change. Re-index once after connecting a site, or when you suspect the assistant has an old copy.', 'rtac' ) . '</p>';
		echo '<p>' . esc_html__( 'Drafts, private and password-protected content are never sent.', 'rtac' ) . '</p>';

		if ( ! $this->settings->is_configured() ) {
			echo '<div class="notice notice-warning inline"><p>';
			printf(
				/* translators: %s: link to the connection settings. */
				esc_html__( 'Set up the connection first: %s', 'rtac' ),
				'<a href="' . esc_url( Rtac_Admin::page_url( 'rtac', array( 'tab' => 'connection' ) ) ) . '">' . esc_html__( 'Connection settings', 'rtac' ) . '</a>'
			);
			echo '</p></div></div>';
			return;
		}

		$total = $this->reindexer->total();
		/* translators: %s: number of posts. */
		echo '<p>' . esc_html( sprintf( _n( '%s post will be sent.', '%s posts will be sent.', $total, 'rtac' ), number_format_i18n( $total ) ) ) . '</p>';
		$queued = $this->queue->count();
		if ( $queued > 0 ) {
			/* translators: %s: number of posts. */
			echo '<p>' . esc_html( sprintf( _n( '%s change could not be sent yet and will be retried automatically.', '%s changes could not be sent yet and will be retried automatically.', $queued, 'rtac' ), number_format_i18n( $queued ) ) ) . '</p>';
		}
		$pending = $this->pending_embeddings();
		if ( null !== $pending && $pending > 0 ) {
			echo '<p id="rtac-pending-embeddings">' . esc_html(
				sprintf(
					/* translators: %s: number of text passages. */
					_n(
						'%s passage is still being indexed for search by meaning; until then the assistant finds it by its words.',
						'%s passages are still being indexed for search by meaning; until then the assistant finds them by their words.',
						$pending,
						'rtac'
					),
					number_format_i18n( $pending )
				)
			) . '</p>';
		} elseif ( 0 === $pending ) {
			echo '<p id="rtac-pending-embeddings">' . esc_html__( 'Every passage is indexed for search by meaning.', 'rtac' ) . '</p>';
		}
		printf( '<p><button type="button" class="button button-primary" id="rtac-reindex-start" data-total="%1$d">%2$s</button></p>', (int) $total, esc_html__( 'Start re-indexing', 'rtac' ) );
		printf( '<progress id="rtac-reindex-progress" max="%1$d" value="0" hidden aria-describedby="rtac-reindex-status"></progress>', max( 1, (int) $total ) );
		echo '<p id="rtac-reindex-status" role="status" aria-live="polite"></p>';
		echo '</div>';
	}
}
